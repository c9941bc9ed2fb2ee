/** Section A: one review's cost without I/O, the production app over the real client and an in-memory API server. */
import { configuredDeps, createApp } from "../../functions/app.ts";
import { createJsonMetrics } from "../../functions/metrics.ts";
import { FUNCTION_NAMES, readConfig, type FunctionName } from "../../shared/config/index.ts";
import { createStaticTokenSource } from "../../shared/credentials/token-source.ts";
import { createKubeGmsaClient, type GmsaClient } from "../../shared/kube/client.ts";
import { createJsonLogger } from "../../shared/log.ts";
import type { KubeFetch } from "../../shared/kube/request.ts";
import { answerAsApi } from "../support/kube-server.ts";
import { applyReplyPatch } from "../support/reviews.ts";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import {
  benchCredSpec,
  benchCredSpecNames,
  buildBenchPod,
  CONTAINER_COUNTS,
  inlinedContents,
  reviewBody,
  type ContainerCount,
} from "./bench-pods.ts";
import { summarize, type Summary } from "./percentiles.ts";

const CALLER_TOKEN = "bench-caller-token-0123456789abcdef";

/** One cell: a function and a pod size; latencies in microseconds. */
export interface InProcessResult {
  fn: FunctionName;
  containers: ContainerCount;
  /** Every timed review. */
  micros: Summary;
  /** The round with the lowest p99: what the code costs when other processes leave the cores alone. */
  bestRound: Summary;
  /** Process CPU time (user + system) over all timed reviews, per review. */
  cpuMicrosPerReview: number;
}

export interface InProcessOptions {
  /** Timed rounds per cell. */
  rounds: number;
  /** Timed reviews per round. */
  iterations: number;
  /** Untimed reviews before the first round. */
  warmup: number;
}

/** An API server in memory: every benchmark credspec exists and every access review is allowed. */
function createMemoryKubeFetch(credspecs: ReadonlyMap<string, unknown>): KubeFetch {
  const api = { credspecs: Object.fromEntries(credspecs) };
  return (url, init) => {
    const body = typeof init.body === "string" ? init.body : "";
    const answer = answerAsApi(api, { method: init.method ?? "GET", path: new URL(url).pathname, body });
    const headers = { "content-type": "application/json" };
    return Promise.resolve(new Response(JSON.stringify(answer.body), { status: answer.status, headers }));
  };
}

/** The production app for both functions (bearer caller auth, the JSON logger writing nowhere) over `gmsa`. */
export function createBenchApp(gmsa: GmsaClient) {
  const config = readConfig({ CALLER_AUTH: "bearer", CALLER_AUTH_TOKENS: CALLER_TOKEN, LOG_LEVEL: "info" }, "node");
  const logger = createJsonLogger({ level: config.logLevel, write: () => {} });
  const readiness = () => Promise.resolve({ ready: true as const });
  return createApp(configuredDeps(config, { gmsa, logger, readiness, metrics: createJsonMetrics() }));
}

export function reviewRequest(fn: FunctionName, body: string): Request {
  return new Request(`https://gmsa.local/${fn}?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${CALLER_TOKEN}` },
    body,
  });
}

/** Times each cell's reviews one at a time. @throws Error when a reply is not the expected allow. */
export async function measureInProcess(options: InProcessOptions): Promise<InProcessResult[]> {
  const credspecs = new Map(benchCredSpecNames().map((name, i) => [name, benchCredSpec(i)] as const));
  const fetch = createMemoryKubeFetch(credspecs);
  const tokenSource = createStaticTokenSource({ token: "t" });
  const app = createBenchApp(createKubeGmsaClient({ server: "https://kube.invalid", fetch, tokenSource }));
  const results: InProcessResult[] = [];
  for (const containers of CONTAINER_COUNTS) {
    const expandPod = buildBenchPod(containers);
    const expanded = await app.fetch(reviewRequest("expand", reviewBody(expandPod)));
    const expandReply = (await expanded.json()) as AdmissionReviewResponse;
    const authorizePod = applyReplyPatch(expandPod, expandReply);
    // The fast path of authorize's comparison needs exactly what expand inlined.
    const expected = inlinedContents(credspecs);
    for (const c of authorizePod.spec?.containers ?? []) {
      const w = c.securityContext?.windowsOptions;
      if (w?.gmsaCredentialSpec !== expected.get(w?.gmsaCredentialSpecName ?? ""))
        throw new Error("expand did not inline the expected contents");
    }
    const bodies: Record<FunctionName, string> = { expand: reviewBody(expandPod), authorize: reviewBody(authorizePod) };
    for (const fn of FUNCTION_NAMES) {
      const send = async (): Promise<void> => {
        const res = await app.fetch(reviewRequest(fn, bodies[fn]));
        const text = await res.text();
        if (res.status !== 200 || !text.includes('"allowed":true')) {
          throw new Error(
            `in-process ${fn} (${containers} containers): unexpected reply ${res.status} ${text.slice(0, 300)}`,
          );
        }
      };
      for (let i = 0; i < options.warmup; i++) await send();
      const all = new Float64Array(options.rounds * options.iterations);
      let bestRound: Summary | undefined;
      const cpuBefore = process.cpuUsage();
      for (let round = 0; round < options.rounds; round++) {
        const samples = all.subarray(round * options.iterations, (round + 1) * options.iterations);
        for (let i = 0; i < options.iterations; i++) {
          const started = performance.now();
          await send();
          samples[i] = (performance.now() - started) * 1000;
        }
        const summary = summarize(samples);
        if (bestRound === undefined || summary.p99 < bestRound.p99) bestRound = summary;
      }
      const cpu = process.cpuUsage(cpuBefore);
      results.push({
        fn,
        containers,
        micros: summarize(all),
        bestRound: bestRound!,
        cpuMicrosPerReview: (cpu.user + cpu.system) / all.length,
      });
    }
  }
  return results;
}
