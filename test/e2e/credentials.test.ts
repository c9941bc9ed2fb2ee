/**
 * The Node server's exec plugin credentials against the real API server (docs/configuration.md, Talking to the Kubernetes API):
 * tokens are cached until their advertised expiry minus the refresh skew, and a token the API
 * server refuses (401) is dropped and replaced once, within the same review. Node only: Workers
 * cannot run exec plugins. The caches of credspecs and access reviews are off, so that every
 * review calls the API server.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, inject, it, vi } from "vitest";
import { adminEndpoint, applyBaseInfra, kubeRequestOk, type FunctionsStack } from "../../infra/local/index.ts";
import { FUNCTIONS_NAMESPACE, revokeFunctionTokens } from "../../infra/local/exec-plugin.ts";
import { BOUND_TOKEN_LABEL } from "../../infra/local/function-tokens.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { gmsaPod } from "./support/install-checks.ts";
import { createPod, parsed, readCredSpec, useRegisteredFunctions } from "./support/pods.ts";

const cluster = inject("cluster");
const NO_CACHES = { CREDSPEC_CACHE_TTL_MS: "0", ACCESS_CACHE_TTL_MS: "0" };
let webapp01: unknown;
let reviews = 0;

beforeAll(async () => {
  await applyBaseInfra(cluster);
  webapp01 = await readCredSpec(cluster, "webapp01");
});

/** A server-side dry-run create that needs both functions and three API calls; expects it expanded and allowed. */
async function expectReviewPasses(): Promise<void> {
  const pod = gmsaPod("credentials", `credentials-${++reviews}`, "gmsa-app");
  const created = await createPod(cluster, pod, { dryRun: true });
  expect(created.body.message).toBeUndefined();
  expect(created.status).toBe(201);
  expect(parsed(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
}

/** Plugin runs per function: from the count file and from the function's own /metrics. */
async function pluginRuns(stack: FunctionsStack) {
  const runs = {} as Record<FunctionName, { countFile: number; success: number; pluginError: number }>;
  for (const fn of FUNCTION_NAMES) {
    const metrics = await stack.metrics(fn);
    runs[fn] = {
      countFile: stack.execRuns(fn),
      success: metrics["execRuns_success"] ?? -1,
      pluginError: metrics["execRuns_pluginError"] ?? -1,
    };
  }
  return runs;
}

describe("Node runtime: exec plugin tokens with a 20 s advertised lifetime", () => {
  const stack = useRegisteredFunctions(cluster, { env: NO_CACHES, lifetimeSeconds: 20 });

  it("reuses the token until expiry minus the skew (15 s), then runs the plugin again; reviews keep passing", async () => {
    await expectReviewPasses();
    const fresh = await pluginRuns(stack());
    for (const fn of FUNCTION_NAMES) {
      expect(fresh[fn].countFile).toBeGreaterThanOrEqual(1);
      expect(fresh[fn].success).toBe(fresh[fn].countFile);
    }
    // Every token was minted before `fresh` was read: 16 s from now its refresh time (20 s - 5 s) has passed.
    await sleep(16_000);
    await expectReviewPasses();
    const later = await pluginRuns(stack());
    for (const fn of FUNCTION_NAMES) {
      expect(later[fn].countFile).toBe(fresh[fn].countFile + 1);
      expect(later[fn]).toEqual({ countFile: later[fn].countFile, success: later[fn].countFile, pluginError: 0 });
    }
  });
});

describe("Node runtime: a broken exec plugin", () => {
  const missing = "/nonexistent/gmsa-e2e/minter.kubeconfig";
  // Registered without a wait for a review to pass: none can here.
  const stack = useRegisteredFunctions(cluster, {
    env: NO_CACHES,
    pluginEnv: { GMSA_MINTER_KUBECONFIG: missing },
    wait: false,
  });

  it("denies with a 500 naming the review uid and nothing of the plugin; the function's log line has the detail", async () => {
    const pod = gmsaPod("credentials", "credentials-broken", "gmsa-app");
    // The configuration reaches the admission plugin through an informer: until then the pod is not reviewed.
    let created = await createPod(cluster, pod, { dryRun: true });
    for (let i = 0; i < 150 && created.status !== 500; i++) {
      await sleep(200);
      created = await createPod(cluster, pod, { dryRun: true });
    }
    expect(created.status).toBe(500);
    const message = String(created.body.message);
    expect(message).toContain("could not authenticate to the API server");
    const uid = /under request uid ([0-9a-f-]{36})/.exec(message)?.[1];
    expect(uid, message).toBeDefined();
    for (const leak of ["gmsa exec plugin", missing, "exec-plugin.ts", "exited with"])
      expect(message).not.toContain(leak);
    const lineFor = () =>
      readFileSync(stack().logFiles.expand, "utf8")
        .split("\n")
        .filter((l) => l.includes(`"uid":"${uid}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    // The log reaches its file through a pipe: give it a moment.
    const line = await vi.waitFor(() => lineFor() ?? expect.fail("no log line yet"), { timeout: 2_000, interval: 50 });
    expect(line).toMatchObject({ function: "expand", uid, allowed: false, code: 500, errors: "ERR_CREDENTIALS" });
    expect(String(line?.["credentials"])).toContain("gmsa exec plugin");
    expect(String(line?.["credentials"])).toContain(missing);
  });
});

describe("Node runtime: a revoked exec plugin token", () => {
  const stack = useRegisteredFunctions(cluster, { env: NO_CACHES });

  it("gets 401 from the API server; the function runs the plugin again and the same review passes", async () => {
    await expectReviewPasses();
    const before = await pluginRuns(stack());
    expect(await revokeFunctionTokens(cluster)).toBeGreaterThanOrEqual(2);
    // kube-apiserver caches successful token authentications for 10 s (cluster.test.ts shows it):
    // after that the revoked tokens get 401. Their advertised expiry is an hour away, so a new
    // plugin run can only come from the 401.
    await sleep(10_500);
    await expectReviewPasses();
    const after = await pluginRuns(stack());
    for (const fn of FUNCTION_NAMES) {
      expect(after[fn]).toEqual({
        countFile: before[fn].countFile + 1,
        success: before[fn].success + 1,
        pluginError: 0,
      });
    }
    // One new bound token per function, minted after the revocation.
    const secrets = await kubeRequestOk<{ items: { metadata: { labels: Record<string, string> } }[] }>(
      adminEndpoint(cluster),
      `/api/v1/namespaces/${FUNCTIONS_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(BOUND_TOKEN_LABEL)}`,
    );
    expect(secrets.items.map((s) => s.metadata.labels[BOUND_TOKEN_LABEL]).sort()).toEqual([
      "gmsa-authorize",
      "gmsa-expand",
    ]);
  });
});
