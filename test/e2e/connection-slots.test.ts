/**
 * Connection slots held by idle keep-alive connections (issue 37, M1), through the real kube-apiserver: both functions
 * run as production runs them (the bundle, `npm start`'s heap flags), registered as the cluster's webhooks. An attacker
 * with no credential holds more connections than the server's cap from several loopback addresses, each after one
 * `GET /healthz`, and refills every one the server closes. Once it has the cap full, GMSA pods are created through the
 * API server, six at once, for CREATE_MS: none may be refused, and each server's resident memory must stay under a
 * 128 MiB container limit. Prints the figures (docs/security.md, "Limits on what one request can cost").
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FunctionsStack } from "../../infra/local/index.ts";
import { startBundledFunctions, type BundledFunctions } from "./support/bundled-functions.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { holdIdleConnections, type IdleAttack } from "./support/idle-connections.ts";
import { streamPods } from "./support/pod-stream.ts";
import { findStackPids, readRss, serverPort, watchRssPeaks } from "./support/process-memory.ts";

const cluster = inject("cluster");
const GROUP = "connection-slots";
/** The server's connection cap (functions/node/server.ts). */
const MAX_CONNECTIONS = 512;
/** Per server: 10 source addresses of 60 connections, more than the cap. */
const SOURCES = 10;
const PER_SOURCE = 60;
/** Pod creates run this long while the attack holds the cap: past the API server's own 90 s idle timeout. */
const CREATE_MS = Number(process.env["SLOTS_CREATE_MS"] ?? 150_000);
/** Creates sent at once, each round, as the review saw them (6 parallel GMSA pod creates). */
const PARALLEL_CREATES = 6;
const ROUND_PAUSE_MS = 1_000;
/** The attacker must have the cap full within this, on a busy machine too, before anything is judged. */
const FILL_WITHIN_MS = 60_000;
/** The container limit of the chart's default resources. */
const RSS_LIMIT_BYTES = 128 * 1024 * 1024;
const RSS_SAMPLE_MS = 100;
const MIB = 1024 * 1024;

let bundled: BundledFunctions | undefined;
let stack: FunctionsStack;
let webapp01: unknown;

beforeAll(async () => {
  bundled = await startBundledFunctions(cluster, GROUP);
  ({ stack, webapp01 } = bundled);
}, 180_000);

afterAll(() => bundled?.stop());

describe("the Node server's connection slots under idle keep-alive connections, called by kube-apiserver", () => {
  it(
    `refuses no GMSA pod create while an attacker holds the ${MAX_CONNECTIONS}-connection cap with idle keep-alives, under 128 MiB`,
    { timeout: CREATE_MS + FILL_WITHIN_MS + 60_000 },
    async () => {
      const pids = await findStackPids(stack);
      const idleRss = await readRss(pids);
      const rss = watchRssPeaks(pids, RSS_SAMPLE_MS);
      const attacks: IdleAttack[] = [];
      try {
        const options = { sources: SOURCES, perSource: PER_SOURCE, durationMs: FILL_WITHIN_MS + CREATE_MS + 5_000 };
        attacks.push(...FUNCTION_NAMES.map((fn) => holdIdleConnections(serverPort(stack[`${fn}BaseUrl`]), options)));
        // Judge the server only once the attacker presents a full cap to each (on a busy machine it takes longer).
        const began = performance.now();
        while (attacks.some((a) => a.mostOpen < MAX_CONNECTIONS) && performance.now() - began < FILL_WITHIN_MS)
          await sleep(50);
        const fullMs = performance.now() - began;
        for (const [i, { mostOpen }] of attacks.entries())
          expect(mostOpen, `the attacker filled ${FUNCTION_NAMES[i]}'s cap before the creates`).toBeGreaterThanOrEqual(
            MAX_CONNECTIONS,
          );

        const creates = streamPods(cluster, GROUP, {
          parallel: PARALLEL_CREATES,
          pauseMs: ROUND_PAUSE_MS,
          contents: webapp01,
        });
        await sleep(CREATE_MS);
        const { admitted: answered, refused, slowestMs } = await creates.stop();
        const peak = await rss.stop();
        console.log(
          `[slots] attacker ${SOURCES}x${PER_SOURCE} per server, cap full after ${(fullMs / 1000).toFixed(1)} s; ` +
            FUNCTION_NAMES.map((fn, i) => {
              const a = attacks[i]!;
              return `${fn}: at most ${a.mostOpen} open and ${a.mostIdle} idle at once, ${a.opened} opened, ${a.toldToClose} told to close, RSS idle ${(idleRss[fn] / MIB).toFixed(1)} MiB peak ${(peak[fn] / MIB).toFixed(1)} MiB`;
            }).join("; ") +
            `; pod creates over ${(CREATE_MS / 1000).toFixed(0)} s: ${answered} answered (slowest ${slowestMs.toFixed(0)} ms), ${refused.length} refused` +
            (refused.length > 0 ? ` (first: ${refused[0]})` : ""),
        );

        expect(refused).toEqual([]);
        expect(answered).toBeGreaterThanOrEqual(PARALLEL_CREATES);
        for (const fn of FUNCTION_NAMES) expect(peak[fn], `${fn}: peak RSS`).toBeLessThan(RSS_LIMIT_BYTES);
      } finally {
        for (const attack of attacks) attack.stop();
        await rss.stop();
        await Promise.all(attacks.map((a) => a.done));
      }
    },
  );
});
