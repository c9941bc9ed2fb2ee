/**
 * The fault matrix's world: a throw-away PKI, the API stand-in (test/support/kube-server.ts) with faults to inject, and the real Node server
 * (`startNodeServer`) over HTTPS, authenticating with the switchable exec plugin. Reviews go over HTTPS with
 * `?timeout=2s`, so each has a 1.6 s budget. After every test: no unhandled rejection, /healthz still answers,
 * and no issued token reached a reply or a log line.
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Agent, fetch } from "undici";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { startNodeServer } from "../../../../../functions/node/server.ts";
import type { AdmissionReviewResponse } from "../../../../../shared/admission/review.ts";
import type { FunctionName } from "../../../../../shared/config/index.ts";
import { runCount } from "../../../../support/exec-plugins.ts";
import { startKubeServer, type Endpoint, type Fault, type KubeServer } from "../../../../support/kube-server.ts";
import { tempDir } from "../../../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../../../support/test-pki.ts";
import { buildPod, WEBAPP1_CREDSPEC } from "../../../../support/pods.ts";
import { applyReplyPatch, buildReview } from "../../../../support/reviews.ts";
import { parseMetrics, samplesOf } from "../../../../support/prometheus.ts";
import { execUser, writeKubeconfig } from "../../../support/kubeconfig.ts";
import { verifyFaultToken } from "./fault-token.ts";

/** The one GMSACredentialSpec the API server holds. */
const CREDSPEC_NAME = "webapp1";

/** The webhook timeout the API server would append, and the review budget it gives (a fifth less). */
export const WEBHOOK_TIMEOUT = "2s";
export const BUDGET_MS = 1_600;
/** Room for the reply to travel and the event loop to turn; the API server itself waits the full 2 s. */
export const SLACK_MS = 300;
/**
 * The first review of a new server, before any fault: it spawns the exec plugin (a Node process) and opens the API
 * connection, which on a machine loaded by the other tiers has taken over 1.6 s.
 */
export const FIRST_REVIEW_TIMEOUT = "10s";
/** When a hung plugin is killed: the exec source's own bound, longer than the review budget. */
export { EXEC_TIMEOUT_MS } from "../../../../../shared/credentials/exec-credential.ts";

export type PluginMode = "ok" | "fail" | "hang" | "fail-after-first";

export interface ReviewResult {
  fn: FunctionName;
  httpStatus: number;
  reply: AdmissionReviewResponse;
  uid: string;
  ms: number;
}

export interface Webhook {
  logs: string[];
  /** Exec plugin runs so far (its COUNT_FILE). */
  pluginRuns(): number;
  setPluginMode(mode: PluginMode): Promise<void>;
  /** The pid a hanging plugin wrote. */
  hungPluginPid(): Promise<number>;
  review(fn: FunctionName, timeout?: string): Promise<ReviewResult>;
  /** The review's log line (one per review), parsed. */
  logFor(uid: string): Record<string, unknown> | undefined;
  healthz(): Promise<number>;
  metrics(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** One row of the matrix as seen in this run. */
export interface MatrixRow {
  fault: string;
  fn: FunctionName;
  /** The denial's status.code, or "allowed". */
  outcome: number | "allowed";
  ms: number;
  /** The denial's message, with the plugin command shortened. */
  message?: string;
  /** How the function came back once the fault cleared. */
  recovery: string;
}

export interface FaultWorld {
  readonly api: KubeServer;
  startWebhook(options?: { pluginMode?: PluginMode }): Promise<Webhook>;
  /** Prints `fault: <name> -> <code> in <ms> ms, recovered` and keeps the row for the file's table. */
  report(row: MatrixRow): void;
  /**
   * One denial row: allowed first, then `fault` injected (`"refused"`: the API server stops listening) and the call
   * counts reset, the denial checked, the fault healed, recovery checked and the row reported.
   * @returns the API calls the denied review made, and how long it took.
   */
  denialRow(row: DenialRow): Promise<{ credspec: number; lsar: number; ms: number }>;
}

export interface DenialRow {
  fn: FunctionName;
  fault: string;
  inject: Fault | "refused";
  endpoints?: Endpoint[];
  expected: ExpectedDenial;
}

/** Every unhandled rejection in this process while the matrix runs. */
const rejections: unknown[] = [];
process.on("unhandledRejection", (reason) => rejections.push(reason));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pod of a review: expand gets the name only; authorize also the contents expand would have inlined. */
function reviewBody(fn: FunctionName, uid: string): Record<string, unknown> {
  const windowsOptions =
    fn === "expand"
      ? { gmsaCredentialSpecName: CREDSPEC_NAME }
      : { gmsaCredentialSpecName: CREDSPEC_NAME, gmsaCredentialSpec: JSON.stringify(WEBAPP1_CREDSPEC) };
  return buildReview(buildPod({ windowsOptions }), { uid });
}

/** Registers the hooks of one test file and returns its world (usable inside tests). */
export function useFaultWorld(): FaultWorld {
  let pki: TestPki | undefined;
  let api: KubeServer | undefined;
  let secretFile = "";
  let agent: Agent | undefined;
  const open: Webhook[] = [];
  const rows: MatrixRow[] = [];
  let uids = 0;

  beforeAll(async () => {
    pki = await createTestPki();
    // The exec plugin mints tokens from this secret; the API server accepts only those.
    const secret = randomBytes(32).toString("hex");
    secretFile = path.join(pki.dir, "fault-server-secret");
    await writeFile(secretFile, secret, { mode: 0o600 });
    api = await startKubeServer({
      ...pki.server,
      credspecs: { [CREDSPEC_NAME]: WEBAPP1_CREDSPEC },
      authenticate: (token) => token !== undefined && verifyFaultToken(secret, token) !== undefined,
    });
    agent = new Agent({ connect: { ca: pki.caPem } });
  });

  let listeners = 0;
  beforeEach(() => {
    listeners = process.listenerCount("unhandledRejection");
  });

  afterEach(async () => {
    const webhooks = open.splice(0);
    try {
      for (const webhook of webhooks) {
        expect(await webhook.healthz(), "/healthz after the fault").toBe(200);
        const secrets = [...world.api.seenTokens(), "decoy-stdout-secret"];
        for (const line of webhook.logs) for (const secret of secrets) expect(line).not.toContain(secret);
      }
      expect(rejections.splice(0), "unhandled rejections").toEqual([]);
    } finally {
      await Promise.all(webhooks.map((webhook) => webhook.close()));
      // startNodeServer's own unhandledRejection listener leaves with the server.
      expect(process.listenerCount("unhandledRejection"), "unhandledRejection listeners after close").toBe(listeners);
      world.api.heal();
      world.api.reset();
      await world.api.start().catch(() => undefined);
    }
  });

  afterAll(async () => {
    if (rows.length > 0) console.log(formatMatrix(rows));
    await api?.close();
    await agent?.close();
    await pki?.cleanup();
  });

  async function startWebhook(options: { pluginMode?: PluginMode } = {}): Promise<Webhook> {
    if (pki === undefined || agent === undefined) throw new Error("the fault world is not set up");
    const { api } = world;
    const dispatcher = agent;
    const dir = await tempDir("gmsa-faults-");
    const files = {
      count: path.join(dir, "plugin-runs"),
      mode: path.join(dir, "plugin-mode"),
      pid: path.join(dir, "plugin-pid"),
      cert: path.join(dir, "webhook.crt"),
      key: path.join(dir, "webhook.key"),
    };
    await Promise.all([
      writeFile(files.mode, options.pluginMode ?? "ok"),
      writeFile(files.cert, pki.server.cert),
      writeFile(files.key, pki.server.key, { mode: 0o600 }),
    ]);
    const user = execUser("switchable", {
      COUNT_FILE: files.count,
      MODE_FILE: files.mode,
      PID_FILE: files.pid,
      SECRET_FILE: secretFile,
    });
    const kubeconfig = await writeKubeconfig(dir, { server: api.url, caPem: pki.caPem, user });
    const logs: string[] = [];
    const running = await startNodeServer(
      {
        FUNCTIONS: "expand,authorize",
        PORT: "0",
        HOST: "127.0.0.1",
        CALLER_AUTH: "none",
        KUBECONFIG: kubeconfig,
        TLS_CERT_FILE: files.cert,
        TLS_KEY_FILE: files.key,
        // Caches off: every review reaches the API server, so a fault cannot hide behind a cached answer.
        CREDSPEC_CACHE_TTL_MS: "0",
        ACCESS_CACHE_TTL_MS: "0",
      },
      (line) => logs.push(line),
    );
    const base = `https://127.0.0.1:${running.port}`;
    const get = (route: string) => fetch(`${base}${route}`, { dispatcher });

    const webhook: Webhook = {
      logs,
      pluginRuns: () => runCount(files.count),
      setPluginMode: (mode) => writeFile(files.mode, mode),
      hungPluginPid: async () => Number(await readFile(files.pid, "utf8")),
      logFor: (uid) =>
        logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((entry) => entry["msg"] === "review" && entry["uid"] === uid),
      async review(fn, timeout = WEBHOOK_TIMEOUT) {
        const uid = `fault-review-${++uids}`;
        const started = performance.now();
        const response = await fetch(`${base}/${fn}?timeout=${timeout}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(reviewBody(fn, uid)),
          dispatcher,
        });
        const reply = (await response.json()) as AdmissionReviewResponse;
        return { fn, httpStatus: response.status, reply, uid, ms: Math.round(performance.now() - started) };
      },
      async healthz() {
        const response = await get("/healthz");
        await response.arrayBuffer();
        return response.status;
      },
      async metrics() {
        // Exec plugin runs under the names the matrix was written with when /metrics was JSON: execRuns_<outcome>.
        const families = await parseMetrics(await (await get("/metrics")).text());
        const runs = samplesOf(families, "gmsa_webhooks_exec_plugin_runs_total");
        return Object.fromEntries(runs.map((sample) => [`execRuns_${sample.labels["outcome"]}`, Number(sample.value)]));
      },
      close: () => running.close(),
    };
    open.push(webhook);
    return webhook;
  }

  const world = {
    get api() {
      if (api === undefined) throw new Error("the fault server is not running");
      return api;
    },
    startWebhook,
    report(row: MatrixRow) {
      rows.push(row);
      const outcome = row.outcome === "allowed" ? "allowed" : String(row.outcome);
      console.log(`fault: ${row.fault} [${row.fn}] -> ${outcome} in ${row.ms} ms, recovered (${row.recovery})`);
      if (row.message !== undefined) console.log(`  message: ${row.message}`);
    },
    async denialRow({ fn, fault, inject, endpoints, expected }: DenialRow) {
      const webhook = await startWebhook();
      expectAllowed(await webhook.review(fn, FIRST_REVIEW_TIMEOUT));
      if (inject === "refused") await world.api.stop();
      else world.api.inject(inject, endpoints);
      world.api.reset();
      const denied = await webhook.review(fn);
      const message = expectDenied(world, webhook, denied, expected);
      const calls = { credspec: world.api.count("credspec"), lsar: world.api.count("lsar"), ms: denied.ms };
      if (inject === "refused") await world.api.start();
      else world.api.heal();
      const recovery = await expectRecovery(webhook, fn);
      world.report({ fault, fn, outcome: expected.code, ms: denied.ms, message, recovery });
      return calls;
    },
  };
  return world;
}

/** The rows of one file as markdown. */
export function formatMatrix(rows: readonly MatrixRow[]): string {
  const lines = ["| fault | function | outcome | time | message | recovery |", "| --- | --- | --- | --- | --- | --- |"];
  for (const row of rows) {
    const outcome = row.outcome === "allowed" ? "allowed" : `denied, ${row.outcome}`;
    const message = row.message === undefined ? "" : `\`${row.message.replaceAll("|", "\\|")}\``;
    lines.push(`| ${row.fault} | ${row.fn} | ${outcome} | ${row.ms} ms | ${message} | ${row.recovery} |`);
  }
  return lines.join("\n");
}

/** What a denial must say. */
export interface ExpectedDenial {
  code: number;
  message: RegExp;
  /** The error codes the review's log line lists, in any order. */
  errors: string[];
}

/**
 * A fail-closed answer: HTTP 200, an AdmissionReview echoing the uid, not allowed, the expected code and error
 * codes, a message matching `message` that carries no token, plugin stdout or stack trace, within the budget plus
 * slack.
 * @returns the message, with the plugin command shortened, for the matrix.
 */
export function expectDenied(
  world: FaultWorld,
  webhook: Webhook,
  result: ReviewResult,
  expected: ExpectedDenial,
): string {
  expect(result.httpStatus).toBe(200);
  expect(result.reply).toMatchObject({ kind: "AdmissionReview", response: { uid: result.uid, allowed: false } });
  const text = result.reply.response.status?.message ?? "";
  expect(result.reply.response.status?.code, text).toBe(expected.code);
  const log = webhook.logFor(result.uid);
  if (expected.errors.includes("ERR_CREDENTIALS")) {
    // A credential failure's detail (plugin stderr, install hint, paths) is the log line's, never the pod author's.
    expect(text).toContain(`could not authenticate to the API server`);
    expect(text).toContain(`under request uid ${result.uid}`);
    expect(text).not.toContain(process.execPath);
    expect(text).not.toMatch(expected.message);
    expect(String(log?.["credentials"])).toMatch(expected.message);
  } else {
    expect(text).toMatch(expected.message);
  }
  for (const token of world.api.seenTokens()) expect(text).not.toContain(token);
  expect(text).not.toContain("decoy-stdout-secret");
  expect(text).not.toMatch(/\n\s*at |\.ts:\d+|file:\/\//);
  expect(result.ms).toBeLessThan(BUDGET_MS + SLACK_MS);
  expect(log).toMatchObject({ allowed: false, code: expected.code });
  expect(String(log?.["errors"]).split(",").sort()).toEqual([...expected.errors].sort());
  const shown = expected.errors.includes("ERR_CREDENTIALS") ? `${text} [log: ${String(log?.["credentials"])}]` : text;
  return shown.replaceAll(process.execPath, "<node>");
}

/** Allowed; expand's patch inlines the credspec, authorize lets the pod through unchanged. */
export function expectAllowed(result: ReviewResult): void {
  expect(result.httpStatus).toBe(200);
  expect(result.reply.response, result.reply.response.status?.message).toMatchObject({
    uid: result.uid,
    allowed: true,
  });
  if (result.fn === "expand") {
    const pod = applyReplyPatch(buildPod({ windowsOptions: { gmsaCredentialSpecName: CREDSPEC_NAME } }), result.reply);
    expect(JSON.parse(pod.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec ?? "null")).toEqual(
      WEBAPP1_CREDSPEC,
    );
  } else {
    expect(result.reply.response.patch).toBeUndefined();
  }
}

/**
 * After the fault cleared: the same review on the same server succeeds. Immediately (`waitMs` 0) or, where a
 * credential backoff is documented, once it has passed: reviews are retried every 200 ms for up to `waitMs`.
 * @returns how recovery went, for the matrix.
 */
export async function expectRecovery(webhook: Webhook, fn: FunctionName, waitMs = 0): Promise<string> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    const result = await webhook.review(fn);
    if (result.reply.response.allowed || performance.now() - started >= waitMs) {
      expectAllowed(result);
      const after = Math.round(performance.now() - started);
      return attempt === 1 ? `next review allowed, ${result.ms} ms` : `allowed after ${after} ms (${attempt} reviews)`;
    }
    await sleep(200);
  }
}
