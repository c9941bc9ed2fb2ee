import { createApp, type AppDeps } from "../../../../functions/app.ts";
import { createReviewCounters } from "../../../../functions/metrics.ts";
import type { CallerAuthOptions } from "../../../../shared/http/caller-auth.ts";
import type { GmsaClient } from "../../../../shared/kube/gmsa-client.ts";
import type { Logger, LogFields, LogLevel } from "../../../../shared/log.ts";
import { buildReview } from "../../support/reviews.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";

/** A logger that keeps every line, for asserting on what was (and was not) logged. */
export function createMemoryLogger(): Logger & { lines: { level: LogLevel; msg: string; fields: LogFields }[]; text(): string } {
  const lines: { level: LogLevel; msg: string; fields: LogFields }[] = [];
  return {
    lines,
    log(level, msg, fields = {}) {
      lines.push({ level, msg, fields });
    },
    text: () => lines.map((l) => JSON.stringify(l)).join("\n"),
  };
}

/** The contents of credspec "webapp1". */
export const WEBAPP1 = { CmsPlugins: ["ActiveDirectory"], DomainJoinConfig: { MachineAccountName: "webapp1" } };

/** A GmsaClient that counts calls and knows one credspec, "webapp1", usable by everyone. */
export function createCountingClient(): GmsaClient & { calls: number } {
  const client = {
    calls: 0,
    getCredSpecContents() {
      client.calls++;
      return Promise.resolve(WEBAPP1);
    },
    canUseCredSpec() {
      client.calls++;
      return Promise.resolve({ allowed: true, reason: "" });
    },
  };
  return client;
}

/** NOW for token clocks: 2026-01-01T00:00:00Z. */
export const NOW_MS = Date.UTC(2026, 0, 1);

/** createApp with test deps; `callerAuth` is the part under test. */
export function createTestApp(callerAuth: CallerAuthOptions, overrides: Partial<AppDeps> = {}) {
  const logger = createMemoryLogger();
  const gmsa = createCountingClient();
  const app = createApp({
    functions: FUNCTION_NAMES,
    version: "test",
    callerAuth,
    defaultTimeoutMs: 5000,
    gmsa,
    settings: { randomHostname: false, maxCredSpecNames: 16 },
    randomBytes: (n) => new Uint8Array(n),
    logger,
    now: () => NOW_MS,
    counters: createReviewCounters(),
    bodyLimitBytes: 64 * 1024,
    ...overrides,
  });
  return { app, logger, gmsa };
}

/**
 * A CREATE review of a pod whose container names credspec "webapp1" with its contents inlined, as expand leaves
 * it: both functions allow it, and both call the API server to check it.
 */
export function gmsaReview(uid = "uid-1"): string {
  const pod = { metadata: { name: "web" }, spec: { containers: [{ name: "web", securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: JSON.stringify(WEBAPP1) } } }] } };
  return JSON.stringify(buildReview(pod, { uid, namespace: "default" }));
}

/** A POST of `body` as JSON with extra headers. */
export function post(body: RequestInit["body"], headers: Record<string, string> = {}): RequestInit {
  return { method: "POST", body, headers: { "content-type": "application/json", ...headers } };
}

/** A request body that records whether anyone read it. */
export function watchedBody(text: string): { body: ReadableStream<Uint8Array>; pulled: () => boolean } {
  let pulled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled = true;
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
    // highWaterMark 0: nothing is pulled until someone reads.
  }, { highWaterMark: 0 });
  return { body, pulled: () => pulled };
}
