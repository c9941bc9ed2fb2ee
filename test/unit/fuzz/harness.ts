/** The app under fuzzing: both functions behind a path secret, the fake client, a logger that is checked. */
import { expect } from "vitest";
import { createMemoryLogger, createTestApp } from "../../support/app.ts";
import { buildInlinedGmsaReview } from "../../support/reviews.ts";
import { checkReply, decodeSent } from "./contract.ts";
import { mustRefuse } from "./oracle.ts";
import { CONTENTS_MARKER, CREDSPECS, createWorldClient } from "./world.ts";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";
import { MAX_CREDSPECS_PER_POD } from "../../../shared/policy/checks.ts";
import type { PolicySettings, RequestingUserMode } from "../../../shared/policy/facts.ts";

export const PATH_SECRET = "fuzz-path-secret-0123456789abcdefghijklmnop";
/** Scales every property's number of runs (FUZZ_SCALE=10 for a long local run). */
export const SCALE = Number(process.env.FUZZ_SCALE ?? "1");
/**
 * Each property runs a fixed number of inputs, so its time only tracks the machine's load (over 150 s on 2 cores at
 * load 14): the timeout is there to catch a hang, not to judge speed.
 */
export const FUZZ_TIMEOUT_MS = 600_000 * SCALE;

/**
 * fast-check parameters for `runs` inputs (times SCALE). The seed is random unless FUZZ_SEED pins it; a
 * failure prints the seed and the path, so `FUZZ_SEED=<seed>` replays it.
 */
export function fuzzParameters(runs: number): { numRuns: number; seed?: number } {
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  return { numRuns: Math.max(1, Math.round(runs * SCALE)), ...(seed === undefined ? {} : { seed }) };
}

/** REVIEW_REQUESTING_USER=off and ENFORCEMENT=deny unless given; RANDOM_HOSTNAME always on. */
export function createFuzzApp({ requestingUser = "off", enforcement = "deny" }: Partial<PolicySettings> = {}) {
  const logger = createMemoryLogger();
  const { lines } = logger;
  const gmsa = createWorldClient({ reviewsRequester: requestingUser !== "off" });
  let counter = 0;
  const { app } = createTestApp({
    callerAuth: { mode: "path", secrets: [PATH_SECRET] },
    gmsa,
    settings: { randomHostname: true, requestingUser, enforcement },
    randomBytes: (n) => Uint8Array.from({ length: n }, (_, i) => (counter++ * 31 + i * 7) % 256),
    logger,
    now: () => 0,
  });
  let inputs = 0;
  return {
    app,
    gmsa,
    /** Every request sent, for the closing count. */
    inputs: () => inputs,
    async send(path: string, init: RequestInit): Promise<Response> {
      inputs++;
      return app.request(path, init);
    },
    async review(fn: "expand" | "authorize", body: Uint8Array): Promise<Response> {
      inputs++;
      return app.request(`/${fn}/${PATH_SECRET}?timeout=10s`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
    },
    /** Checks and clears the log: no secret, no contents, no object dump; review lines carry the uid. */
    checkLogs(): void {
      for (const line of lines) {
        const text = JSON.stringify(line);
        if (
          text.includes(PATH_SECRET) ||
          text.includes(CONTENTS_MARKER) ||
          text.length > 2000 ||
          (line.msg === "review" && typeof line.fields.uid !== "string")
        ) {
          throw new Error(`bad log line: ${text.slice(0, 400)}`);
        }
      }
      lines.length = 0;
    },
  };
}

/** A review both functions allow: credspec "webapp1" inlined, its service account and requester allowed. */
export function goodReview(uid: string): Uint8Array {
  const review = buildInlinedGmsaReview({
    uid,
    namespace: "team-a",
    serviceAccountName: "web",
    credSpecName: "webapp1",
    contents: CREDSPECS.get("webapp1"),
  });
  // A requester who may use webapp1 too, for the apps that review the requesting user.
  (review.request as Record<string, unknown>).userInfo = { username: "alice" };
  return new TextEncoder().encode(JSON.stringify(review));
}

/** The app keeps serving: a good review is still allowed by both functions. */
export async function expectStillServing(fuzz: ReturnType<typeof createFuzzApp>): Promise<void> {
  for (const fn of FUNCTION_NAMES) {
    const body = goodReview(`after-${fn}`);
    const checked = await checkReply(fn, body, await fuzz.review(fn, body));
    expect(checked.reply?.response.allowed).toBe(true);
  }
  fuzz.checkLogs();
}

/** Fails when fewer than `floor` of a property's cases reached its assertion (skipped for runs too short to judge). */
export function expectReached(counts: { cases: number; reached: number }, floor: number, what = "cases"): void {
  if (counts.cases < 100) return;
  expect(
    counts.reached / counts.cases,
    `${what}: ${counts.reached} of ${counts.cases} reached the assertion`,
  ).toBeGreaterThanOrEqual(floor);
}

/** Why the oracle says authorize must refuse `body` (with REVIEW_REQUESTING_USER `requestingUser`), or undefined. */
export function oracleReason(body: Uint8Array, requestingUser?: RequestingUserMode): string | undefined {
  return mustRefuse(decodeSent(body), {
    maxCredSpecNames: MAX_CREDSPECS_PER_POD,
    ...(requestingUser ? { requestingUser } : {}),
  });
}

/** Throws with the oracle's reason when `fn`'s allowing `body` is something the oracle must refuse. */
export function expectOracleAllows(body: Uint8Array, what: string, requestingUser?: RequestingUserMode): void {
  const reason = oracleReason(body, requestingUser);
  if (reason !== undefined) throw new Error(`${what} allowed a review it must refuse: ${reason}`);
}
