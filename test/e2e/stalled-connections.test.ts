/**
 * Slow-loris against the Node server (issue 23, row 3), through the real kube-apiserver: both functions run as
 * production runs them (the esbuild bundle of functions/node/index.ts with the heap limits of `npm start`), registered
 * as the cluster's webhooks. Each server is kept under STALLED_PER_SERVER connections that finish TLS and send half a
 * header, or never start the handshake, for SUSTAIN_MS, every one it closes or refuses replaced, while GMSA pods are
 * created through the API server (the first while the cap is full). Nothing is judged until the attacker has filled
 * the cap (a busy machine slows the attacker too). Prints the figures (docs/security.md, "Limits on what one request
 * can cost").
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FunctionsStack } from "../../infra/local/index.ts";
import { startBundledFunctions, type BundledFunctions } from "./support/bundled-functions.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { streamPods } from "./support/pod-stream.ts";
import { findStackPids, readRss, serverPort, watchRssPeaks } from "./support/process-memory.ts";
import { openStalledConnections, type Stall } from "./support/stalled-connections.ts";

const cluster = inject("cluster");
const GROUP = "stalled-connections";
/** Per server: more than the 1,500 of the audit's figure would not fit a 128 MiB replica without the limits. */
const STALLED_PER_SERVER = 1_200;
/** One in this many never starts its TLS handshake (the handshake timeout closes those). */
const NO_HANDSHAKE_EVERY = 12;
/** The container limit of the chart's default resources. */
const RSS_LIMIT_BYTES = 128 * 1024 * 1024;
/** Every stalled connection must be closed by the server within this of opening. */
const CLOSE_WITHIN_MS = 20_000;
const RSS_SAMPLE_MS = 100;
/** Once it holds a full cap, the attacker keeps refilling the slots the server frees for this long (over two headers timeouts). */
const SUSTAIN_MS = 15_000;
/** The attacker must fill the cap within this, on a busy machine too, before anything is judged. */
const FILL_WITHIN_MS = 120_000;
/** Source addresses per server: 60 connections each, under the server's 64 per source. */
const SOURCES = 20;
/**
 * Between pod creates. The first needs a new connection while the cap is full (the API server has none open to the
 * webhooks registered here); `STALL_REVIEW_PAUSE_MS=11000` (over the 10 s keep-alive timeout) makes every one need one.
 */
const REVIEW_PAUSE_MS = Number(process.env["STALL_REVIEW_PAUSE_MS"] ?? 100);
/** The server's cap of connections without an authenticated review, all of the attacker's (functions/node/server.ts). */
const UNPROVEN_CAP = 256;
const MIB = 1024 * 1024;

let bundled: BundledFunctions | undefined;
let stack: FunctionsStack;
let webapp01: unknown;

beforeAll(async () => {
  bundled = await startBundledFunctions(cluster, GROUP);
  ({ stack, webapp01 } = bundled);
}, 180_000);

afterAll(() => bundled?.stop());

describe("the Node server under stalled connections (slow-loris), called by kube-apiserver", () => {
  it(
    `closes ${STALLED_PER_SERVER} stalled connections per server within 20 s, under 128 MiB, while answering reviews`,
    { timeout: FILL_WITHIN_MS + 120_000 },
    async () => {
      const pids = await findStackPids(stack);
      const idle = await readRss(pids);
      const rss = watchRssPeaks(pids, RSS_SAMPLE_MS);
      const began = performance.now();
      const stalls: Stall[] = [];
      let reviews: ReturnType<typeof streamPods> | undefined;
      try {
        const options = {
          count: STALLED_PER_SERVER,
          noHandshakeEvery: NO_HANDSHAKE_EVERY,
          sources: SOURCES,
          sustainMs: FILL_WITHIN_MS + SUSTAIN_MS,
        };
        stalls.push(...FUNCTION_NAMES.map((fn) => openStalledConnections(serverPort(stack[`${fn}BaseUrl`]), options)));
        // Reviews start once both servers' caps are full (the API server has no connection open to them yet: it must
        // get a new one in), and run until the last stalled one is closed. A full cap shows as the server closing young
        // connections to make room; the attacker's own count of held ones lags behind its handshakes in flight.
        const fullBy = performance.now() + FILL_WITHIN_MS;
        while (stalls.some((stall) => stall.madeRoom === 0) && performance.now() < fullBy) await sleep(20);
        const fullMs = performance.now() - began;
        for (const [i, stall] of stalls.entries())
          expect(stall.madeRoom, `${FUNCTION_NAMES[i]}'s cap was full before anything is judged`).toBeGreaterThan(0);
        const sustained = setTimeout(() => stalls.forEach((stall) => stall.stopSustaining()), SUSTAIN_MS);
        reviews = streamPods(cluster, GROUP, { pauseMs: REVIEW_PAUSE_MS, contents: webapp01 });
        await Promise.all(stalls.map((stall) => stall.opened));
        clearTimeout(sustained);
        const openedMs = performance.now() - began;
        const lastClosed = await Promise.all(stalls.map((stall) => stall.allClosed(CLOSE_WITHIN_MS + 5_000)));
        const { admitted: answered, refused: failed, slowestMs } = await reviews.stop();
        reviews = undefined;
        const peak = await rss.stop();

        const figures = FUNCTION_NAMES.map((fn, i) => {
          const connections = stalls[i]!.connections;
          const held = connections.filter((c) => c.held);
          const longest = Math.max(...held.map((c) => c.closedAfterMs ?? Number.POSITIVE_INFINITY));
          return {
            fn,
            held: held.length,
            heldNoHandshake: held.filter((c) => c.kind === "no-handshake").length,
            mostHeld: stalls[i]!.mostHeld,
            refused: connections.length - held.length,
            longestHeldMs: longest,
            lastClosedMs: lastClosed[i],
            idleMiB: idle[fn] / MIB,
            peakMiB: peak[fn] / MIB,
          };
        });
        console.log(
          `[stalled] ${STALLED_PER_SERVER} connections per server kept open for ${(openedMs / 1000).toFixed(1)} s, cap full after ${(fullMs / 1000).toFixed(1)} s; ` +
            figures
              .map(
                (f) =>
                  `${f.fn}: ${f.held} held (${f.heldNoHandshake} without handshake, at most ${f.mostHeld} at once), ${f.refused} refused at once, longest held ` +
                  `${(f.longestHeldMs / 1000).toFixed(1)} s, last closed ` +
                  (f.lastClosedMs === undefined
                    ? "never"
                    : `${((f.lastClosedMs - openedMs) / 1000).toFixed(1)} s after the last was opened`) +
                  `, RSS idle ${f.idleMiB.toFixed(1)} MiB peak ${f.peakMiB.toFixed(1)} MiB`,
              )
              .join("; ") +
            `; reviews through the API server meanwhile: ${answered} answered (slowest pod create ${slowestMs.toFixed(0)} ms), ${failed.length} failed`,
        );

        expect(failed).toEqual([]);
        expect(answered).toBeGreaterThanOrEqual(2);
        for (const f of figures) {
          expect(f.lastClosedMs, `${f.fn}: every stalled connection closed`).toBeDefined();
          expect(f.longestHeldMs, `${f.fn}: longest held`).toBeLessThan(CLOSE_WITHIN_MS);
          expect(f.peakMiB * MIB, `${f.fn}: peak RSS`).toBeLessThan(RSS_LIMIT_BYTES);
          // The cap, judged once the attacker held it full (above): the server holds no more than 256 unproven at once,
          // closing an older one for each newcomer. Seen from this side, which learns of closes some event-loop turns
          // late, up to 283 in runs on a loaded 2-core machine; without a cap all 1,200.
          expect(f.mostHeld, `${f.fn}: most held at once`).toBeLessThanOrEqual(UNPROVEN_CAP * 1.25);
        }
      } finally {
        await reviews?.stop();
        await rss.stop();
        for (const stall of stalls) stall.destroy();
      }
    },
  );
});
