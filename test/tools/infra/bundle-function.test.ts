import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleCli, CLI_BUNDLE } from "../../../infra/build/node/bundle-function.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { run } from "../support/run.ts";

let dir: string;

beforeAll(async () => {
  dir = await tempDir("gmsa-bundle-");
});

// The Lambda bundle answering events on plain Node outside the repository: docs/install-guides.test.ts.
describe("bundleCli", () => {
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
