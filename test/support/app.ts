/** A test app around `createApp` with fake dependencies, and a helper to post a review to it. */
import { createApp, type AppDeps } from "../../functions/app.ts";
import { createJsonMetrics } from "../../functions/metrics.ts";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import type { CallerAuthOptions } from "../../shared/caller-auth/index.ts";
import { createJsonLogger, type LogFields, type Logger, type LogLevel } from "../../shared/log.ts";
import { createCountingClient, createFakeGmsaClient } from "./fake-gmsa-client.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";

export interface TestAppOptions extends Partial<Omit<AppDeps, "settings" | "metrics">> {
  settings?: Partial<AppDeps["settings"]>;
  /** JSON metrics, so tests can read their snapshot. */
  metrics?: ReturnType<typeof createJsonMetrics>;
}

/** Deterministic "random" bytes, so the hostname a test sees is always the same. */
export function fixedRandomBytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => i * 7 + 3);
}

/** An app serving both functions, no caller auth, a fake client with no credspecs, and a capturing logger. */
export function createTestApp(options: TestAppOptions = {}) {
  const lines: string[] = [];
  const { settings, ...rest } = options;
  const deps: AppDeps & { metrics: ReturnType<typeof createJsonMetrics> } = {
    functions: [...FUNCTION_NAMES],
    callerAuth: { mode: "none" },
    metricsTokens: [],
    logger: createJsonLogger({ level: "debug", write: (line) => lines.push(line), now: () => 0 }),
    now: () => 0,
    metrics: createJsonMetrics(),
    gmsa: createFakeGmsaClient(),
    randomBytes: fixedRandomBytes,
    readiness: () => Promise.resolve({ ready: true }),
    ...rest,
    settings: { randomHostname: false, requestingUser: "off", enforcement: "deny", ...settings },
  };
  return {
    app: createApp(deps),
    deps,
    /** Log lines written so far, parsed. */
    logs: () => lines.map((line) => JSON.parse(line) as LogFields),
    /** Log lines written so far, raw. */
    rawLogs: () => lines.join("\n"),
  };
}

/** A logger that keeps every line, for asserting on what was (and was not) logged. */
export function createMemoryLogger() {
  const lines: { level: LogLevel; msg: string; fields: LogFields }[] = [];
  const logger: Logger = { log: (level, msg, fields = {}) => void lines.push({ level, msg, fields }) };
  return { ...logger, lines, text: () => lines.map((l) => JSON.stringify(l)).join("\n") };
}

/** NOW for token clocks: 2026-01-01T00:00:00Z. */
export const NOW_MS = Date.UTC(2026, 0, 1);

/**
 * A test app for the HTTP layer, where `callerAuth` is the part under test: a counting client that allows
 * credspec "webapp1" to everyone, a memory logger, and the clock at {@link NOW_MS}.
 */
export function createCallerAuthTestApp(callerAuth: CallerAuthOptions, overrides: TestAppOptions = {}) {
  const logger = createMemoryLogger();
  const gmsa = createCountingClient();
  const { app, deps } = createTestApp({
    callerAuth,
    gmsa,
    randomBytes: (n) => new Uint8Array(n),
    logger,
    now: () => NOW_MS,
    ...overrides,
  });
  return { app, deps, logger, gmsa };
}

/** POSTs `review` to `/<fn>` and reads the AdmissionReview reply; fails the test on a non-200. */
export async function postReview(
  app: ReturnType<typeof createApp>,
  fn: "expand" | "authorize",
  review: unknown,
  options: { headers?: Record<string, string>; query?: string } = {},
): Promise<AdmissionReviewResponse> {
  const res = await app.request(`/${fn}${options.query ?? ""}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: JSON.stringify(review),
  });
  if (res.status !== 200) throw new Error(`expected 200 from /${fn}, got ${res.status}: ${await res.text()}`);
  return (await res.json()) as AdmissionReviewResponse;
}
