/**
 * Soak (issue 5): thousands of mixed reviews at high concurrency, sent straight to the Node server
 * functions (as deployed by infra/local/stack.ts, talking to the real API server), every answer checked
 * against its input, and the servers' resident memory sampled after warm-up, in the middle and at the
 * end. The memory bound is generous on purpose: it can only trip on a real leak, not on GC noise.
 *
 * The servers run with a 128 MiB old-space limit, as Node would size itself in a container with a
 * modest memory limit. With the default limit (about 4 GiB on a 24 GiB machine) V8 grows its heap
 * lazily: RSS climbed 40 MiB per 4,000 reviews for 30,000 reviews before levelling off near 350 MiB,
 * while heap snapshots at 8,000 and 32,000 reviews held the same 17.5 MB. With the limit, RSS is flat
 * after warm-up, and a leak ends in an out-of-memory crash, which fails every later review. The young
 * generation keeps 16 MiB semi-spaces: V8 would shrink them with the old-space limit, and the extra
 * scavenges made the soak half again as slow.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyBaseInfra } from "../../infra/local/apply.ts";
import { startFunctions, type FunctionsStack } from "../../infra/local/stack.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { readCredSpec } from "./support/pods.ts";
import { findServerPid, readProcessMemory } from "./support/process-memory.ts";
import { buildSoakCases, checkSoakReply, type SoakCase } from "./support/soak-cases.ts";

const cluster = inject("cluster");
const CONCURRENCY = 64;
const WARMUP_REVIEWS = 2000;
/** Reviews in each of the two measured halves. */
const HALF_REVIEWS = 4000;
/** End may exceed middle by at most this much per server. */
const RSS_BOUND_BYTES = 50 * 1024 * 1024;
const HEAP_LIMIT_MIB = 128;
const MIB = 1024 * 1024;

let stack: FunctionsStack;
let cases: SoakCase[];
const pools = new Map<FunctionName, Pool>();

beforeAll(async () => {
  await applyBaseInfra(cluster);
  cases = buildSoakCases(await readCredSpec(cluster, "webapp01"), await readCredSpec(cluster, "webapp02"));
  const nodeOptions = `--max-old-space-size=${HEAP_LIMIT_MIB} --max-semi-space-size=16`;
  stack = await startFunctions(cluster, { runtime: "node", dir: cluster.dir, env: { NODE_OPTIONS: nodeOptions } });
  for (const fn of FUNCTION_NAMES) {
    const base = fn === "expand" ? stack.expandBaseUrl : stack.authorizeBaseUrl;
    pools.set(fn, new Pool(base, { connections: CONCURRENCY, keepAliveTimeout: 30_000, connect: { ca: cluster.caPem } }));
  }
});

afterAll(async () => {
  await Promise.all([...pools.values()].map((pool) => pool.close()));
  await stack?.stop();
});

let sent = 0;

/** Sends `count` reviews, cycling through the cases, `CONCURRENCY` at a time; returns the wrong answers. */
async function sendReviews(count: number): Promise<string[]> {
  const wrong: string[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < count) {
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
  return {
    expand: (await readProcessMemory(pids.expand)).rssBytes,
    authorize: (await readProcessMemory(pids.authorize)).rssBytes,
  };
}

describe("soak: the Node server functions under mixed load", () => {
  it(`answers ${WARMUP_REVIEWS + 2 * HALF_REVIEWS} mixed reviews at concurrency ${CONCURRENCY} correctly, and memory stays flat`, { timeout: 120_000 }, async () => {
    const pids = { expand: await findServerPid(stack.expandBaseUrl), authorize: await findServerPid(stack.authorizeBaseUrl) };
    expect(await sendReviews(WARMUP_REVIEWS)).toEqual([]);
    const start = await sampleRss(pids);
    let began = performance.now();
    expect(await sendReviews(HALF_REVIEWS)).toEqual([]);
    let seconds = (performance.now() - began) / 1000;
    const middle = await sampleRss(pids);
    began = performance.now();
    expect(await sendReviews(HALF_REVIEWS)).toEqual([]);
    seconds += (performance.now() - began) / 1000;
    const end = await sampleRss(pids);

    const mib = (bytes: number) => (bytes / MIB).toFixed(1);
    console.log(
      `[soak] ${2 * HALF_REVIEWS} reviews (after ${WARMUP_REVIEWS} warm-up) of ${cases.length} kinds at concurrency ${CONCURRENCY} ` +
        `in ${seconds.toFixed(1)} s: ${((2 * HALF_REVIEWS) / seconds).toFixed(0)} reviews/s; RSS MiB start/middle/end: ` +
        FUNCTION_NAMES.map((fn) => `${fn} ${mib(start[fn])}/${mib(middle[fn])}/${mib(end[fn])}`).join(", "),
    );
    for (const fn of FUNCTION_NAMES) expect(end[fn] - middle[fn]).toBeLessThan(RSS_BOUND_BYTES);
  });
});
