/**
 * The Go reference (reference.ts) beside ours: its answers checked, section B's rows and section F's pod creates, and
 * its rows of section B printed beside our Node functions'.
 */
import { kubeRequest, renderWebhooks, type KubeObject, type LocalClusterInfo } from "../../infra/local/index.ts";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { decodePatch } from "../support/reviews.ts";
import type { BenchCluster } from "./bench-cluster.ts";
import { buildBenchPod, CONTAINER_COUNTS, inlinedContents, reviewBody } from "./bench-pods.ts";
import { buildReviewBodies, type MeasuredTarget } from "./measured-target.ts";
import { measurePodCreates, type PodCreatePhaseOptions, type PodCreateRounds } from "./pod-create.ts";
import { REFERENCE_PATHS, REFERENCE_SERVER_NAME, type RunningReference } from "./reference.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { fixed, printColumns, type Cell } from "./table.ts";
import { measureRows, type MeasuredRow, type ThroughputCell, type ThroughputOptions } from "./throughput.ts";

export interface ReferenceFigures {
  /** Answers that were not what both implementations agree on, described. */
  wrongAnswers: string[];
  cells: MeasuredRow[];
  /** Section F: rounds of creates alternating between no webhook, the floor and the reference. */
  podCreate: PodCreateRounds;
}

/** A reply as parsed: the reference's is not checked against our schema. */
type ReviewAnswer = Partial<AdmissionReviewResponse>;

/**
 * The contents each `gmsaCredentialSpec` op of a reply's JSON Patch inlines, by container index, parsed. The
 * reference adds the field per container; ours may too: both are compared as values, not text.
 */
function inlinedByContainer(answer: ReviewAnswer): Map<number, unknown> {
  const inlined = new Map<number, unknown>();
  for (const op of answer.response === undefined ? [] : decodePatch(answer as AdmissionReviewResponse)) {
    const match = /^\/spec\/containers\/(\d+)\/securityContext\/windowsOptions\/gmsaCredentialSpec$/.exec(op.path);
    if (match !== null && "value" in op && typeof op.value === "string")
      inlined.set(Number(match[1]), JSON.parse(op.value));
  }
  return inlined;
}

/**
 * Sends each function the cases both implementations decide alike: the benchmark pods (allowed; expand
 * inlines every container's credspec), the same pod for a service account without `use` and a pod naming
 * a credspec that does not exist (denied; the codes differ, see docs/migration.md, so only `allowed` is compared).
 */
async function checkAnswers(
  targets: readonly MeasuredTarget[],
  credspecs: ReadonlyMap<string, unknown>,
): Promise<string[]> {
  const contents = inlinedContents(credspecs);
  const wrong: string[] = [];
  for (const target of targets) {
    const url = new URL(target.url);
    const endpoint = { server: url.origin, caPem: target.ca };
    const send = async (body: string): Promise<ReviewAnswer> => {
      const options = { method: "POST", body, headers: target.headers };
      const answer = await kubeRequest(endpoint, `${url.pathname}${url.search}`, options);
      return (typeof answer.body === "string" ? JSON.parse(answer.body) : answer.body) as ReviewAnswer;
    };
    for (const containers of CONTAINER_COUNTS) {
      const pod = buildBenchPod(containers, target.fn === "authorize" ? contents : undefined);
      const answer = await send(reviewBody(pod));
      if (answer.response?.allowed !== true) wrong.push(`${target.server} ${target.fn} ${containers}c: not allowed`);
      if (target.fn === "expand") {
        const inlined = inlinedByContainer(answer);
        (pod.spec?.containers ?? []).forEach((c, i) => {
          const name = c.securityContext?.windowsOptions?.gmsaCredentialSpecName ?? "";
          if (JSON.stringify(inlined.get(i)) !== JSON.stringify(credspecs.get(name)))
            wrong.push(`${target.server} expand ${containers}c: container ${i} not inlined with ${name}`);
        });
      }
      const forbidden = { ...pod, spec: { ...pod.spec, serviceAccountName: "default" } };
      if (target.fn === "authorize" && (await send(reviewBody(forbidden))).response?.allowed !== false)
        wrong.push(`${target.server} authorize ${containers}c: allowed a service account without use`);
    }
    const missing = buildBenchPod(1);
    const options = missing.spec?.containers?.[0]?.securityContext?.windowsOptions;
    if (options !== undefined) options.gmsaCredentialSpecName = "no-such-credspec";
    if ((await send(reviewBody(missing))).response?.allowed !== false)
      wrong.push(`${target.server} ${target.fn}: allowed a credspec that does not exist`);
  }
  return wrong;
}

export async function referenceWebhooks(cluster: LocalClusterInfo, reference: RunningReference): Promise<KubeObject[]> {
  const objects = await renderWebhooks({
    expandUrl: reference.baseUrl,
    authorizeUrl: reference.baseUrl,
    caBundlePem: cluster.caPem,
  });
  for (const object of objects) {
    const fn: FunctionName = object.kind === "MutatingWebhookConfiguration" ? "expand" : "authorize";
    for (const webhook of object.webhooks as { clientConfig: { url: string } }[])
      webhook.clientConfig.url = `${reference.baseUrl}${REFERENCE_PATHS[fn]}`;
  }
  return objects;
}

/** Checks the reference's answers, then measures section B's rows and section F's pod creates with it. */
export async function benchReference(
  bench: BenchCluster,
  reference: RunningReference,
  options: ThroughputOptions & PodCreatePhaseOptions,
): Promise<ReferenceFigures> {
  const wrongAnswers = await checkAnswers(reference.targets, bench.credspecs);
  for (const line of wrongAnswers) options.log(`unexpected answer: ${line}`);
  const cells = await measureRows(reference.targets, buildReviewBodies(bench.credspecs), options, (_, row) => row());
  const podCreate = await measurePodCreates(
    bench.cluster,
    "reference",
    { objects: await referenceWebhooks(bench.cluster, reference) },
    options,
  );
  return { wrongAnswers, cells, podCreate };
}

export function printReference(phases: readonly RuntimeFigures[], reference: ReferenceFigures): void {
  const node = phases.find((p) => p.runtime === "node");
  const ourCell = (r: MeasuredRow) =>
    node?.cells.find(
      (c) => c.fn === r.fn && c.containers === r.containers && c.load.concurrency === r.load.concurrency,
    );
  const ours = (read: (ours: ThroughputCell, r: MeasuredRow) => Cell) => (r: MeasuredRow) => {
    const cell = ourCell(r);
    return cell === undefined ? "-" : read(cell, r);
  };
  printColumns(
    `B. Side by side with ${REFERENCE_SERVER_NAME} (GMSA_REF_BIN), same pods, same API server, HTTPS`,
    [
      ["function", (r) => r.fn],
      ["containers", (r) => r.containers],
      ["concurrency", (r) => r.load.concurrency],
      ["node reviews/s", ours((c) => fixed(c.load.perSecond))],
      ["Go reviews/s", (r) => fixed(r.load.perSecond)],
      ["node / Go", ours((c, r) => `${fixed(c.load.perSecond / r.load.perSecond, 1)}x`)],
      ["node p50 ms", ours((c) => fixed(c.load.latencyMs.p50, 2))],
      ["Go p50 ms", (r) => fixed(r.load.latencyMs.p50, 2)],
      ["node CPU µs/review", ours((c) => fixed(c.serverCpuMicrosPerReview))],
      ["Go CPU µs/review", (r) => fixed(r.serverCpuMicrosPerReview)],
      ["Go errors", (r) => r.load.errors],
    ],
    reference.cells,
    "The reference's paths: /mutate (expand) and /validate (authorize); its client-go limiter raised (QPS 1000, BURST 2000), " +
      "LOG_LEVEL=info. Its CPU includes its own API calls (it caches nothing); ours are warm.",
  );
  if (reference.wrongAnswers.length > 0)
    console.log(`\nThe reference's unexpected answers:\n${reference.wrongAnswers.map((w) => `- ${w}`).join("\n")}`);
}
