/**
 * Soak (issue 5): thousands of mixed reviews at high concurrency, sent straight to the Node server
 * functions (as deployed by infra/local/stack.ts, talking to the real API server), every answer checked
 * against its input, and the servers' resident memory sampled after warm-up, in the middle and at the
 * end. The memory bound is generous on purpose: it can only trip on a real leak, not on GC noise.
 *
 * The servers run with the production heap limits (infra/build/node/heap-limits.ts: a 64 MiB old space, 2 MiB
 * semi-spaces), as `npm start` and the image do, so that a leak ends in an out-of-memory crash, which fails
 * every later review, instead of hiding in V8's lazily grown heap. With the default limit (about 4 GiB on a 24 GiB
 * machine) RSS climbed 40 MiB per 4,000 reviews for 30,000 reviews before levelling off near 350 MiB, while heap
 * snapshots at 8,000 and 32,000 reviews held the same 17.5 MB.
 *
 * `SOAK_MINUTES=30 npm run soak` runs the same mix for that long instead of two halves of 4,000 reviews (issue 12:
 * no leak over a 30-minute soak), printing RSS at start, middle and end; CI runs the short one.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyBaseInfra, startFunctions, type FunctionsStack } from "../../infra/local/index.ts";
import { NODE_SERVER_OPTIONS } from "../../infra/build/node/heap-limits.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { readCredSpec } from "./support/pods.ts";
import { findStackPids, readRss } from "./support/process-memory.ts";
import { buildSoakCases, checkSoakReply, type SoakCase } from "./support/soak-cases.ts";

const cluster = inject("cluster");
const CONCURRENCY = 64;
const WARMUP_REVIEWS = 2000;
/** Reviews in each of the two measured halves. */
const HALF_REVIEWS = 4000;
/** End may exceed middle by at most this much per server. */
const RSS_BOUND_BYTES = 50 * 1024 * 1024;
const MIB = 1024 * 1024;
/** On demand: each half lasts this long instead of HALF_REVIEWS reviews. */
const SOAK_MINUTES = Number(process.env["SOAK_MINUTES"] ?? "0");
const halfMs = SOAK_MINUTES > 0 ? (SOAK_MINUTES * 60_000) / 2 : undefined;

let stack: FunctionsStack;
let cases: SoakCase[];
const pools = new Map<FunctionName, Pool>();

beforeAll(async () => {
  await applyBaseInfra(cluster);
  cases = buildSoakCases(await readCredSpec(cluster, "webapp01"), await readCredSpec(cluster, "webapp02"));
  // On the command line, as production runs them: NODE_OPTIONS refuses most V8 flags.
  stack = await startFunctions(cluster, {
    runtime: "node",
    dir: cluster.dir,
    nodeArgs: NODE_SERVER_OPTIONS.split(" "),
  });
  const options = { connections: CONCURRENCY, keepAliveTimeout: 30_000, connect: { ca: cluster.caPem } };
  for (const fn of FUNCTION_NAMES) pools.set(fn, new Pool(stack[`${fn}BaseUrl`], options));
});

afterAll(async () => {
  await Promise.all([...pools.values()].map((pool) => pool.close()));
  await stack?.stop();
});

let sent = 0;

/**
 * Sends `count` reviews (or, with `forMs`, as many as fit in that time), cycling through the cases, `CONCURRENCY`
 * at a time; returns the wrong answers.
 */
async function sendReviews(count: number, forMs?: number): Promise<string[]> {
  const wrong: string[] = [];
  let issued = 0;
  const until = forMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + forMs;
  const more = () => (forMs === undefined ? issued < count : performance.now() < until);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (more()) {
        issued++;
        const n = sent++;
        const soakCase = cases[n % cases.length]!;
        const uid = `soak-${n}`;
        const response = await pools.get(soakCase.fn)!.request({
          path: `/${soakCase.fn}?timeout=10s`,
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${stack.callerToken}` },
          body: soakCase.body(uid),
        });
        const problem = checkSoakReply(soakCase, uid, response.statusCode, await response.body.text());
        if (problem !== undefined && wrong.length < 20) wrong.push(`${soakCase.name} (${uid}): ${problem}`);
      }
    }),
  );
  return wrong;
}

/** Resident memory of both servers, after a pause that lets in-flight work and timers settle. */
async function sampleRss(pids: Record<FunctionName, number>): Promise<Record<FunctionName, number>> {
  await sleep(500);
  return readRss(pids);
}

describe("soak: the Node server functions under mixed load", () => {
  const size =
    halfMs === undefined
      ? `${WARMUP_REVIEWS + 2 * HALF_REVIEWS} mixed reviews`
      : `mixed reviews for ${SOAK_MINUTES} minutes`;
  it(
    `answers ${size} at concurrency ${CONCURRENCY} correctly, and memory stays flat`,
    { timeout: 120_000 + 2 * (halfMs ?? 0) },
    async () => {
      const pids = await findStackPids(stack);
      expect(await sendReviews(WARMUP_REVIEWS)).toEqual([]);
      const start = await sampleRss(pids);
      const measuredFrom = sent;
      let began = performance.now();
      expect(await sendReviews(HALF_REVIEWS, halfMs)).toEqual([]);
      let seconds = (performance.now() - began) / 1000;
      const middle = await sampleRss(pids);
      began = performance.now();
      expect(await sendReviews(HALF_REVIEWS, halfMs)).toEqual([]);
      seconds += (performance.now() - began) / 1000;
      const end = await sampleRss(pids);

      const mib = (bytes: number) => (bytes / MIB).toFixed(1);
      const measured = sent - measuredFrom;
      console.log(
        `[soak] ${measured} reviews (after ${WARMUP_REVIEWS} warm-up) of ${cases.length} kinds at concurrency ${CONCURRENCY} ` +
          `in ${seconds.toFixed(1)} s: ${(measured / seconds).toFixed(0)} reviews/s; RSS MiB start/middle/end: ` +
          FUNCTION_NAMES.map((fn) => `${fn} ${mib(start[fn])}/${mib(middle[fn])}/${mib(end[fn])}`).join(", "),
      );
      for (const fn of FUNCTION_NAMES) expect(end[fn] - middle[fn]).toBeLessThan(RSS_BOUND_BYTES);
    },
  );
});
