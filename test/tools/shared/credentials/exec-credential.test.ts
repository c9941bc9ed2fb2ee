import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runPlugin } from "../../../../functions/node/kube/run-plugin.ts";
import { createExecTokenSource, type ExecTokenSourceOptions } from "../../../../shared/credentials/exec-credential.ts";
import type { ExecConfig } from "../../../../shared/credentials/exec-config.ts";
import { eventually, isAlive, pluginPath, runCount } from "../../../support/exec-plugins.ts";
import { rejectionOf } from "../../../support/no-secrets.ts";
import { tempDir } from "../../../support/temp-dir.ts";

const V1 = "client.authentication.k8s.io/v1";
let clock = Date.now();
const now = (): number => clock;
let dir = "";
let countFile = "";

beforeEach(async () => {
  clock = Date.now();
  dir = await tempDir();
  countFile = path.join(dir, "runs");
});

function exec(script: string, env: Record<string, string> = {}, extra: Partial<ExecConfig> = {}): ExecConfig {
  return {
    apiVersion: V1,
    command: process.execPath,
    args: [pluginPath(script), ...(extra.args ?? [])],
    env: Object.entries({ COUNT_FILE: countFile, ...env }).map(([name, value]) => ({ name, value })),
    provideClusterInfo: false,
    interactiveMode: "Never",
    ...(extra.installHint === undefined ? {} : { installHint: extra.installHint }),
  };
}

function source(config: ExecConfig, options: Partial<ExecTokenSourceOptions> = {}) {
  return createExecTokenSource({
    exec: config,
    runPlugin,
    baseEnv: {},
    shareInFlight: true,
    now,
    monotonic: now,
    timeoutMs: 10_000,
    ...options,
  });
}

// Through the Node client and server instead: one run for 100 concurrent reviews
// (functions/node/kube/create-gmsa-client.test.ts); a failing plugin named with its exit code and stderr, never its
// stdout, and a review denied by its own deadline while the plugin hangs (functions/node/faults/credentials.test.ts).
describe("exec token source: caching", () => {
  it("runs the plugin once and serves the cached token until the refresh skew", async () => {
    const tokens = source(exec("token", { EXPIRES_IN_MS: "600000" }));
    expect(await tokens.getCredential()).toMatchObject({ token: "token-1" });
    expect(await tokens.getCredential()).toMatchObject({ token: "token-1" });
    expect(runCount(countFile)).toBe(1);
    // 10-minute token: the automatic skew is 60 s.
    clock += 600_000 - 61_000;
    expect(await tokens.getCredential()).toMatchObject({ token: "token-1" });
    clock += 2_000;
    expect(await tokens.getCredential()).toMatchObject({ token: "token-2" });
    expect(tokens.counters()).toEqual({ success: 2, pluginError: 0, notFound: 0, timeout: 0 });
  });

  it("keeps a token without expirationTimestamp until it is invalidated after a 401", async () => {
    const tokens = source(exec("token"));
    const first = await tokens.getCredential();
    clock += 24 * 3600_000;
    expect(await tokens.getCredential()).toBe(first);
    tokens.invalidate(first);
    tokens.invalidate(first);
    expect(await tokens.getCredential()).toMatchObject({ token: "token-2" });
    expect(runCount(countFile)).toBe(2);
  });

  it("does not share an in-flight run when shareInFlight is false (Workers), only the settled token", async () => {
    const tokens = source(exec("token", { SLEEP_MS: "100" }), { shareInFlight: false });
    await Promise.all([tokens.getCredential(), tokens.getCredential(), tokens.getCredential()]);
    expect(runCount(countFile)).toBe(3);
    await tokens.getCredential();
    expect(runCount(countFile)).toBe(3);
  });
});

describe("exec token source: failures", () => {
  it("backs off after failures instead of running the plugin in a hot loop", async () => {
    const tokens = source(exec("fail"));
    for (let i = 0; i < 20; i++) await rejectionOf(tokens.getCredential());
    expect(runCount(countFile)).toBe(1);
    expect((await rejectionOf(tokens.getCredential())).message).toMatch(/not retried for another 1s/);
    clock += 1_000;
    await rejectionOf(tokens.getCredential());
    await rejectionOf(tokens.getCredential());
    expect(runCount(countFile)).toBe(2);
    clock += 1_999;
    await rejectionOf(tokens.getCredential());
    expect(runCount(countFile)).toBe(2);
    clock += 1;
    await rejectionOf(tokens.getCredential());
    expect(runCount(countFile)).toBe(3);
    // Doubled per failure up to 30 s: 4, 8, 16, then 30 and 30 again.
    for (const pause of [4_000, 8_000, 16_000, 30_000, 30_000]) {
      clock += pause - 1;
      await rejectionOf(tokens.getCredential());
      clock += 1;
      await rejectionOf(tokens.getCredential());
    }
    expect(runCount(countFile)).toBe(8);
    expect(tokens.counters()).toEqual({ success: 0, pluginError: 8, notFound: 0, timeout: 0 });
  });

  it("shows the installHint when the command is missing", async () => {
    const config = {
      ...exec("token", {}, { installHint: "Install kubelogin: brew install int128/kubelogin/kubelogin" }),
      command: "/nonexistent/kubelogin",
    };
    const tokens = source(config);
    const error = await rejectionOf(tokens.getCredential());
    expect(error).toMatchObject({ code: "ERR_CREDENTIALS" });
    expect(error.message).toContain('exec plugin "/nonexistent/kubelogin" not found');
    expect(error.message).toContain("brew install int128/kubelogin/kubelogin");
    expect(tokens.counters()).toEqual({ success: 0, pluginError: 0, notFound: 1, timeout: 0 });
  });

  it("kills a plugin that hangs past its timeout, and its child", async () => {
    const pidFile = path.join(dir, "child.pid");
    const tokens = source(exec("hang-with-child", { PID_FILE: pidFile }), { timeoutMs: 2_000 });
    const error = await rejectionOf(tokens.getCredential());
    expect(error).toMatchObject({ code: "ERR_CREDENTIALS" });
    expect(error.message).toMatch(/timed out after 2000 ms and was killed: waiting for the identity provider/);
    expect(await eventually(() => !isAlive(Number(readFileSync(pidFile, "utf8"))))).toBe(true);
    expect(tokens.counters().timeout).toBe(1);
  });

  it.each([
    ["not-json", /stdout is not JSON/],
    ["wrong-api-version", /wrong or missing apiVersion/],
    ["wrong-kind", /wrong or missing kind/],
    ["no-token", /neither a token nor a client certificate/],
    ["bad-timestamp", /status.expirationTimestamp/],
    ["cert-without-key", /client certificate without its key/],
    ["expired", /already expired/],
  ])("refuses %s output without repeating stdout", async (mode, expected) => {
    const tokens = source(exec("bad-output", {}, { args: [mode] }));
    const error = await rejectionOf(tokens.getCredential());
    expect(error).toMatchObject({ code: "ERR_CREDENTIALS" });
    expect(error.message).toMatch(expected);
    expect(error.message).not.toContain("leaked-secret");
    expect(JSON.stringify(error)).not.toContain("leaked-secret");
  });
});

describe("the ExecCredential a plugin prints", () => {
  /** The credential of a plugin that exits 0 after printing `output`. */
  function credentialOf(output: unknown): Promise<unknown> {
    const stdout = JSON.stringify(output);
    const printed: ExecTokenSourceOptions["runPlugin"] = () =>
      Promise.resolve({ outcome: "exited", exitCode: 0, stdout, stderr: "" });
    return source(exec("token"), { runPlugin: printed }).getCredential();
  }

  it("accepts a certificate pair and RFC 3339 timestamps with offsets", async () => {
    const output = {
      apiVersion: V1,
      kind: "ExecCredential",
      status: { clientCertificateData: "C", clientKeyData: "K", expirationTimestamp: "2030-01-01T01:00:00+01:00" },
    };
    expect(await credentialOf(output)).toEqual({
      clientCertificateData: "C",
      clientKeyData: "K",
      expirationTimestamp: "2030-01-01T01:00:00+01:00",
    });
  });

  it("requires the configured apiVersion, not just any known one", async () => {
    const output = {
      apiVersion: "client.authentication.k8s.io/v1beta1",
      kind: "ExecCredential",
      status: { token: "t" },
    };
    await expect(credentialOf(output)).rejects.toThrow(
      /printed an invalid ExecCredential: wrong or missing apiVersion/,
    );
  });
});
