/**
 * Load for the fault test: closed-loop senders of dry-run pod creates through the API server (admin
 * token), and one paced sender of reviews straight to the functions, each naming a credspec no review
 * named before. Every answer is judged (fault-cases.ts) and recorded with its send time and the phase
 * the test was in, for the timeline (fault-timeline.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import type { FunctionsStack, LocalClusterInfo } from "../../../infra/local/index.ts";
import {
  APISERVER_CASES,
  DIRECT_CASES,
  directReview,
  faultPod,
  judgeDirect,
  judgePodCreate,
  type FaultAnswer,
  type FaultCase,
} from "./fault-cases.ts";

/** One judged answer. Times in ms since the load started. */
export interface FaultRecord extends FaultAnswer {
  via: FaultCase["via"];
  caseName: string;
  phase: string;
  sentMs: number;
  doneMs: number;
}

/** Options for {@link startFaultLoad}. */
export interface FaultLoadOptions {
  cluster: LocalClusterInfo;
  stack: FunctionsStack;
  /** The credspec webapp01 as the API server returns it (what an admitted pod must carry). */
  webapp01: unknown;
  /** Existing credspecs gmsa-app may use, each named by one direct review at most, and their contents. */
  freshNames: readonly string[];
  freshContents: string;
}

/** A running load; `stop()` waits for the requests in flight and returns every record. */
export interface FaultLoad {
  /** Names the phase requests sent from now on belong to. */
  phase(name: string): void;
  /** Ms since the load started. */
  elapsedMs(): number;
  stop(): Promise<FaultRecord[]>;
}

/** After a transport error: the API server is down, and a hot loop of refused connections proves nothing. */
const PAUSE_AFTER_ERROR_MS = 100;
/** Pod-create senders. */
const CONCURRENCY = 4;
/** Pause between direct reviews. */
const DIRECT_INTERVAL_MS = 150;
/** Per-request limit: longer than the webhooks' 10 s timeout. */
const TIMEOUT_MS = 15_000;

export function startFaultLoad(options: FaultLoadOptions): FaultLoad {
  const { cluster, stack } = options;
  const pool = (origin: string, connections: number) =>
    new Pool(origin, { connections, keepAliveTimeout: 30_000, connect: { ca: cluster.caPem } });
  const pools = {
    apiserver: pool(cluster.server, CONCURRENCY),
    expand: pool(stack.expandBaseUrl, 2),
    authorize: pool(stack.authorizeBaseUrl, 2),
  };
  const records: FaultRecord[] = [];
  const began = performance.now();
  const elapsedMs = () => performance.now() - began;
  let phase = "start";
  let running = true;

  const send = async (
    faultCase: FaultCase,
    target: Pool,
    request: { path: string; headers: Record<string, string>; body: string },
    judge: (status: number, text: string) => FaultAnswer,
  ): Promise<void> => {
    const sentMs = elapsedMs();
    const at = phase;
    let answer: FaultAnswer;
    try {
      const response = await target.request({
        ...request,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...request.headers },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      answer = judge(response.statusCode, await response.body.text());
    } catch (error) {
      // Through the API server a transport error is the API server's; straight to a function it is a crash.
      const detail = `${(error as Error).name}: ${(error as Error).message}`;
      answer = faultCase.via === "apiserver" ? { outcome: "apiserver" } : { outcome: "other", wrong: detail };
      await sleep(PAUSE_AFTER_ERROR_MS);
    }
    records.push({ ...answer, via: faultCase.via, caseName: faultCase.name, phase: at, sentMs, doneMs: elapsedMs() });
  };

  let podCount = 0;
  const podSender = async (): Promise<void> => {
    while (running) {
      const n = podCount++;
      const faultCase = APISERVER_CASES[n % APISERVER_CASES.length]!;
      await send(
        faultCase,
        pools.apiserver,
        {
          path: "/api/v1/namespaces/default/pods?dryRun=All",
          headers: { authorization: `Bearer ${cluster.adminToken}` },
          body: JSON.stringify(faultPod(faultCase.name, n)),
        },
        (status, text) => judgePodCreate(faultCase, status, text, options.webapp01),
      );
    }
  };

  let fresh = 0;
  const directSender = async (): Promise<void> => {
    for (let n = 0; running; n++) {
      const faultCase = DIRECT_CASES[n % DIRECT_CASES.length]!;
      const fn = faultCase.name.endsWith("expand") ? "expand" : "authorize";
      const isFresh = faultCase.name.startsWith("fresh");
      if (isFresh && fresh >= options.freshNames.length) continue;
      const credspec = isFresh ? options.freshNames[fresh++]! : `faults-absent-${n}`;
      const contents = fn === "authorize" ? options.freshContents : undefined;
      const uid = `faults-direct-${n}`;
      await send(
        faultCase,
        pools[fn],
        {
          path: `/${fn}?timeout=10s`,
          headers: { authorization: `Bearer ${stack.callerToken}` },
          body: directReview(uid, credspec, contents),
        },
        (status, text) => judgeDirect(faultCase, fn, status, text),
      );
      await sleep(DIRECT_INTERVAL_MS);
    }
  };

  const senders = [...Array.from({ length: CONCURRENCY }, podSender), directSender()];
  return {
    phase: (name) => {
      phase = name;
    },
    elapsedMs,
    stop: async () => {
      running = false;
      await Promise.all(senders);
      await Promise.all(Object.values(pools).map((p) => p.close()));
      return records;
    },
  };
}
