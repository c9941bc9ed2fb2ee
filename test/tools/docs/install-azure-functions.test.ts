/**
 * docs/install-azure-functions.md's settings, as its own shell block writes them (with a stand-in `az`), in the
 * Azure Functions entry. The entry is loaded once per process, hence a file of its own.
 */
import type * as AzureFunctions from "@azure/functions";
import { HttpRequest, InvocationContext, type HttpFunctionOptions, type HttpResponseInit } from "@azure/functions";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { writeWithClusterCa } from "./cluster-ca.ts";
import { readRepoFile, shellBlockWith } from "../../support/guide-text.ts";
import { runBash, standIns } from "../../support/run-child.ts";

const GUIDE = "docs/install-azure-functions.md";
const CLIENT_ID = "00000000-0000-0000-0000-0000000c1e17";
const registered = vi.hoisted(() => new Map<string, HttpFunctionOptions>());

// Outside the Functions host, @azure/functions skips registration; record it instead.
vi.mock("@azure/functions", async (importOriginal) => {
  const original = await importOriginal<typeof AzureFunctions>();
  return {
    ...original,
    app: { ...original.app, http: (name: string, options: HttpFunctionOptions) => registered.set(name, options) },
  };
});

let dir: string;
let settings: Record<string, string>;
let secret: string;

beforeAll(async () => {
  dir = await tempDir("gmsa-azure-guide-");
  await mkdir(path.join(dir, "infra/deploy/azure"), { recursive: true });
  await mkdir(path.join(dir, "infra/deploy/overlays/azure-functions"), { recursive: true });
  await copyFile(
    path.join(REPO_ROOT, "infra/deploy/azure/appsettings.example.json"),
    path.join(dir, "infra/deploy/azure/appsettings.example.json"),
  );
  // az is not installed here: a stand-in that prints a client ID for `az identity show` and accepts the rest.
  const az = `#!/bin/sh\ncase "$*" in "identity show"*) echo ${CLIENT_ID};; esac\n`;
  const PATH = await standIns(dir, { az }, "/usr/bin:/bin");
  const block = shellBlockWith(await readRepoFile(GUIDE), "infra/deploy/azure/appsettings.example.json");
  await runBash(block, { cwd: dir, env: { PATH } });
  const list = JSON.parse(await readFile(path.join(dir, "appsettings-expand.json"), "utf8")) as {
    name: string;
    value: string;
  }[];
  settings = Object.fromEntries(list.map(({ name, value }) => [name, value]));
  secret = /^EXPAND_PATH_SECRET=(\S+)$/m.exec(
    await readFile(path.join(dir, "infra/deploy/overlays/azure-functions/path-secrets.env"), "utf8"),
  )![1]!;
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe(`${GUIDE}: the app with the guide's settings`, () => {
  it("writes CLOUD_TOKEN=aks with the identity's client ID and the function's own secret, never a placeholder", async () => {
    expect(settings).toMatchObject({
      FUNCTIONS: "expand",
      CALLER_AUTH: "path",
      CALLER_AUTH_PATH_SECRET: secret,
      CLOUD_TOKEN: "aks",
      AKS_CLIENT_ID: CLIENT_ID,
    });
    const authorize = await readFile(path.join(dir, "appsettings-authorize.json"), "utf8");
    expect(authorize).toContain('"value": "authorize"');
    expect(authorize).not.toContain(secret);
    expect(authorize).not.toContain("REPLACE-");
  });

  it("is ready and takes reviews only at /expand/<secret> (401 at /expand)", async () => {
    const kubeconfig = path.join(dir, "kubeconfig.yaml");
    await writeWithClusterCa(kubeconfig, await readRepoFile("infra/deploy/azure/kubeconfig.example.yaml"));
    // What the Functions host sets besides the app settings: the managed identity endpoint (never called here).
    const host = {
      IDENTITY_ENDPOINT: "http://127.0.0.1:41741/msi/token",
      IDENTITY_HEADER: "identity-header-for-tests",
    };
    for (const [name, value] of Object.entries({ ...settings, ...host, KUBECONFIG: kubeconfig }))
      vi.stubEnv(name, value);
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    await import("../../../functions/azure-functions/index.ts");
    const call = (name: string, request: HttpRequest): Promise<HttpResponseInit> =>
      registered.get(name)!.handler(request, new InvocationContext()) as Promise<HttpResponseInit>;
    const healthz = await call(
      "healthz",
      new HttpRequest({ method: "GET", url: "https://gmsa-expand.azurewebsites.net/healthz" }),
    );
    expect(healthz.status).toBe(200);
    const review = (url: string) =>
      new HttpRequest({
        method: "POST",
        url,
        headers: { "content-type": "application/json" },
        body: { string: JSON.stringify(buildReview(buildPod(), { uid: "uid-azure-guide" })) },
      });
    const allowed = await call("expand", review(`https://gmsa-expand.azurewebsites.net/expand/${secret}?timeout=10s`));
    expect(allowed.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(allowed.body as Uint8Array))).toMatchObject({
      response: { uid: "uid-azure-guide", allowed: true },
    });
    const refused = await call("expand", review("https://gmsa-expand.azurewebsites.net/expand?timeout=10s"));
    expect(refused.status).toBe(401);
  });
});
