import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleCli, bundleNodeFunction, CLI_BUNDLE } from "../../../infra/build/node/bundle-function.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";
import { CALLER_TOKEN, serverlessEnv } from "../../support/serverless-env.ts";
import { functionUrlEvent, restApiEvent } from "../../support/lambda-events.ts";

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await tempDir("gmsa-bundle-");
});

describe("bundleNodeFunction", () => {
  it("bundles the Lambda entry into ES modules (entry and chunks) that answer events on plain Node, outside the repository", async () => {
    const outdir = path.join(dir, "aws-lambda");
    const bundle = await bundleNodeFunction({ entry: "functions/aws-lambda/index.ts", outdir });
    expect(bundle.bytes).toBeGreaterThan(0);
    const outfile = path.join(outdir, bundle.entry);
    const events = [
      restApiEvent({ method: "GET", path: "/healthz" }),
      functionUrlEvent({
        method: "POST",
        path: "/authorize?timeout=10s",
        headers: { "content-type": "application/json", authorization: `Bearer ${CALLER_TOKEN}` },
        body: JSON.stringify(buildReview(buildPod(), { uid: "uid-bundle" })),
      }),
    ];
    const script = path.join(dir, "invoke.mjs");
    await writeFile(
      script,
      `const { handler } = await import(${JSON.stringify(outfile)});\n` +
        `const results = [];\nfor (const event of ${JSON.stringify(events)}) results.push(await handler(event));\n` +
        "process.stderr.write(JSON.stringify(results));\n",
    );
    // No node_modules beside or above the bundle: everything it needs is inside it.
    const { stderr } = await run(process.execPath, [script], {
      cwd: dir,
      env: { ...(await serverlessEnv()), PATH: process.env["PATH"] },
    });
    const [healthz, review] = JSON.parse(stderr) as [
      { statusCode: number; body: string },
      { statusCode: number; body: string },
    ];
    expect(healthz).toMatchObject({ statusCode: 200, body: "ok" });
    expect(review.statusCode).toBe(200);
    expect(JSON.parse(review.body)).toMatchObject({ response: { uid: "uid-bundle", allowed: true } });
  });

  it("leaves the external @azure/functions as an import in the Azure bundle (the host hooks into that package)", async () => {
    const outdir = path.join(dir, "azure-functions");
    const bundle = await bundleNodeFunction({
      entry: "functions/azure-functions/index.ts",
      outdir,
      external: ["@azure/functions"],
    });
    const code = await readFile(path.join(outdir, bundle.entry), "utf8");
    expect(code).toMatch(/from ?"@azure\/functions"/);
    expect(code).not.toContain("AzFuncSystemError");
  });

  it("bundles the CLI as an executable a kubeconfig beside it can run: token eks outside the repository", async () => {
    const outDir = path.join(dir, "cli");
    await bundleCli(outDir);
    // Run as kubectl runs `command: ./gmsa-webhooks.mjs`: the file itself, through its #! line.
    const env = {
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
      AWS_REGION: "eu-west-1",
    };
    const { stdout } = await run(path.join(outDir, CLI_BUNDLE), ["token", "eks", "--cluster", "prod"], {
      cwd: dir,
      env,
    });
    expect(JSON.parse(stdout)).toMatchObject({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: expect.stringMatching(/^k8s-aws-v1\./) as unknown },
    });
  });
});
