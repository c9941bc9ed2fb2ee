/**
 * The Node server's /metrics, read by Debian's Prometheus parser after a real server answered reviews against an
 * API server stand-in, one of them for a pod whose every name is distinctive.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Agent, fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodeServer } from "../../../../functions/node/server.ts";
import { createPrometheusMetrics, REVIEW_BUCKETS_SECONDS } from "../../../../functions/node/prometheus.ts";
import type { ExecRunCounters } from "../../../../shared/credentials/exec-credential.ts";
import type { AdmissionReviewResponse } from "../../../../shared/admission/review.ts";
import { startKubeServer, statusBody, type KubeServer } from "../../../support/kube-server.ts";
import { buildPod, inlined, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";
import { parseMetrics, samplesOf, sumOf, type ParsedFamily } from "../../../support/prometheus.ts";
import { buildReview } from "../../../support/reviews.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../../support/test-pki.ts";
import { writeKubeconfig } from "../../support/kubeconfig.ts";

const CALLER_TOKEN = "metrics-test-caller-token-0123456789";
/** METRICS_TOKENS: the scrape credential, apart from the admission one. */
const SCRAPE_TOKEN = "metrics-test-scrape-token-0123456789";
/** Every name of this pod is user input that must never become a label value. */
const DISTINCT = {
  pod: "zq-pod-name-7731",
  namespace: "zq-namespace-7731",
  serviceAccount: "zq-service-account-7731",
  credspec: "zq-credspec-7731",
  container: "zq-container-7731",
  user: "zq-user-7731",
  uid: "zq-uid-7731",
};

/** Our families, their Prometheus type and exact label names. */
const FAMILIES: Record<string, { type: string; labels: string[] }> = {
  gmsa_webhooks_reviews: { type: "counter", labels: ["code", "decision", "function", "operation"] },
  gmsa_webhooks_review_duration_seconds: { type: "histogram", labels: ["function"] },
  gmsa_webhooks_kube_requests: { type: "counter", labels: ["code", "resource", "verb"] },
  gmsa_webhooks_kube_request_duration_seconds: { type: "histogram", labels: ["resource", "verb"] },
  gmsa_webhooks_token_refreshes: { type: "counter", labels: ["outcome", "source"] },
  gmsa_webhooks_cache_requests: { type: "counter", labels: ["cache", "result"] },
  gmsa_webhooks_cache_entries: { type: "gauge", labels: ["cache"] },
};

let pki: TestPki;
let api: KubeServer;
let agent: Agent;
let running: Awaited<ReturnType<typeof startNodeServer>>;
const logs: string[] = [];

function credSpecAnswer(name: string): { status: number; body: unknown } {
  if (name === "webapp1")
    return {
      status: 200,
      body: { apiVersion: "windows.k8s.io/v1", kind: "GMSACredentialSpec", credspec: WEBAPP1_CREDSPEC },
    };
  if (name === "broken") return { status: 500, body: statusBody(500, "InternalError") };
  return { status: 404, body: statusBody(404, "NotFound", { name, kind: "gmsacredentialspecs" }) };
}

beforeAll(async () => {
  pki = await createTestPki();
  api = await startKubeServer({
    ...pki.server,
    script: (request) => {
      if (request.method === "POST") return { status: 201, body: { status: { allowed: true } } };
      return credSpecAnswer(decodeURIComponent(request.path.split("/").at(-1) ?? ""));
    },
  });
  agent = new Agent({ connect: { ca: pki.caPem } });
  const dir = await tempDir("gmsa-metrics-");
  const file = (name: string) => path.join(dir, name);
  await Promise.all([
    writeFile(file("tls.crt"), pki.server.cert),
    writeFile(file("tls.key"), pki.server.key, { mode: 0o600 }),
    // A token file is a refreshing source: token_refreshes_total{source="token_file"} counts its reads.
    writeFile(file("token"), "metrics-test-api-token"),
  ]);
  const kubeconfig = await writeKubeconfig(dir, {
    server: api.url,
    caPem: pki.caPem,
    user: { tokenFile: file("token") },
  });
  running = await startNodeServer(
    {
      PORT: "0",
      HOST: "127.0.0.1",
      CALLER_AUTH: "bearer",
      CALLER_AUTH_TOKENS: CALLER_TOKEN,
      METRICS_TOKENS: SCRAPE_TOKEN,
      // Allowed reviews log their line at debug.
      LOG_LEVEL: "debug",
      KUBECONFIG: kubeconfig,
      TLS_CERT_FILE: file("tls.crt"),
      TLS_KEY_FILE: file("tls.key"),
    },
    (line) => logs.push(line),
  );
});

afterAll(async () => {
  await running?.close();
  await api?.close();
  await agent?.close();
  await pki?.cleanup();
});

const base = () => `https://127.0.0.1:${running.port}`;

async function review(fn: "expand" | "authorize", body: unknown): Promise<AdmissionReviewResponse> {
  const response = await fetch(`${base()}/${fn}?timeout=5s`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${CALLER_TOKEN}` },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as AdmissionReviewResponse;
}

function named(credspec: string, uid: string) {
  return buildReview(
    buildPod({ containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: credspec } }] }),
    { uid },
  );
}

function logFor(uid: string): Record<string, unknown> | undefined {
  return logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((entry) => entry["msg"] === "review" && entry["uid"] === uid);
}

describe("GET /metrics on the Node server", () => {
  let text: string;
  let families: ParsedFamily[];

  beforeAll(async () => {
    const windowsOptions = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
    const inlinedPod = buildPod({ containers: [{ name: "app", windowsOptions }] });
    const distinct = buildPod({
      name: DISTINCT.pod,
      namespace: DISTINCT.namespace,
      serviceAccountName: DISTINCT.serviceAccount,
      containers: [{ name: DISTINCT.container, windowsOptions: { gmsaCredentialSpecName: DISTINCT.credspec } }],
    });
    const user = { username: DISTINCT.user, groups: ["system:authenticated"] };
    // In this order: the second webapp1 read is the cached one.
    const reviews: ["expand" | "authorize", unknown, object][] = [
      ["expand", named("webapp1", "allowed-1"), { allowed: true }],
      ["expand", named("webapp1", "allowed-cached"), { allowed: true }],
      ["authorize", buildReview(inlinedPod, { uid: "authorized-1" }), { allowed: true }],
      ["expand", named("missing", "denied-422"), { status: { code: 422 } }],
      ["expand", named("broken", "denied-500"), { status: { code: 500 } }],
      [
        "authorize",
        buildReview(buildPod(), { uid: "update-1", operation: "UPDATE", oldObject: buildPod() }),
        { allowed: true },
      ],
      ["expand", buildReview(distinct, { uid: DISTINCT.uid, userInfo: user }), { status: { code: 422 } }],
    ];
    for (const [fn, body, expected] of reviews) expect((await review(fn, body)).response).toMatchObject(expected);

    const unauthenticated = await fetch(`${base()}/metrics`, { dispatcher: agent });
    expect(unauthenticated.status).toBe(401);
    await unauthenticated.arrayBuffer();
    const response = await fetch(`${base()}/metrics`, {
      headers: { authorization: `Bearer ${SCRAPE_TOKEN}` },
      dispatcher: agent,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    text = await response.text();
    families = await parseMetrics(text);
  });

  it("parses with Prometheus' own parser, each family with its type and exact label names", () => {
    for (const [name, { type, labels }] of Object.entries(FAMILIES)) {
      const family = families.find((f) => f.name === name);
      expect(family, name).toBeDefined();
      expect(family?.type, name).toBe(type);
      for (const sample of family?.samples ?? []) {
        expect(
          Object.keys(sample.labels)
            .filter((label) => label !== "le")
            .sort(),
          sample.name,
        ).toEqual(labels);
      }
    }
  });

  it("counts reviews by function, operation, decision and code", () => {
    const reviews = (labels: Record<string, string>) => sumOf(families, "gmsa_webhooks_reviews_total", labels);
    expect(reviews({ function: "expand", operation: "CREATE", decision: "allowed", code: "200" })).toBe(2);
    expect(reviews({ function: "expand", operation: "CREATE", decision: "denied", code: "422" })).toBe(2);
    expect(reviews({ function: "expand", operation: "CREATE", decision: "denied", code: "500" })).toBe(1);
    expect(reviews({ function: "authorize", operation: "CREATE", decision: "allowed", code: "200" })).toBe(1);
    expect(reviews({ function: "authorize", operation: "UPDATE", decision: "allowed", code: "200" })).toBe(1);
    expect(reviews({})).toBe(7);
  });

  it("times reviews in a histogram whose buckets include the API server's webhook buckets", () => {
    const buckets = samplesOf(families, "gmsa_webhooks_review_duration_seconds_bucket", { function: "expand" });
    const bounds = buckets.map((sample) => Number(sample.labels["le"] === "+Inf" ? Infinity : sample.labels["le"]));
    for (const bound of [0.005, 0.025, 0.1, 0.5, 1, 2.5, Infinity]) expect(bounds).toContain(bound);
    expect(bounds).toHaveLength(REVIEW_BUCKETS_SECONDS.length + 1);
    expect(sumOf(families, "gmsa_webhooks_review_duration_seconds_count", { function: "expand" })).toBe(5);
    expect(sumOf(families, "gmsa_webhooks_review_duration_seconds_count", { function: "authorize" })).toBe(2);
    expect(Number(buckets.find((sample) => sample.labels["le"] === "+Inf")?.value)).toBe(5);
  });

  it("counts API calls by verb, resource and code, retries included, and times them", () => {
    const calls = (labels: Record<string, string>) => sumOf(families, "gmsa_webhooks_kube_requests_total", labels);
    const get = { verb: "get", resource: "gmsacredentialspecs" };
    expect(calls({ ...get, code: "200" })).toBe(1);
    expect(calls({ ...get, code: "404" })).toBe(2);
    // A GET is retried once after a 5xx.
    expect(calls({ ...get, code: "500" })).toBe(2);
    expect(calls({ verb: "create", resource: "localsubjectaccessreviews", code: "201" })).toBe(1);
    expect(calls({})).toBe(api.requests.length);
    expect(sumOf(families, "gmsa_webhooks_kube_request_duration_seconds_count", get)).toBe(5);
  });

  it("counts cache lookups and token refreshes", () => {
    expect(sumOf(families, "gmsa_webhooks_cache_requests_total", { cache: "credspec", result: "hit" })).toBe(2);
    expect(sumOf(families, "gmsa_webhooks_cache_requests_total", { cache: "credspec", result: "miss" })).toBe(4);
    expect(sumOf(families, "gmsa_webhooks_cache_requests_total", { cache: "access", result: "miss" })).toBe(1);
    expect(sumOf(families, "gmsa_webhooks_cache_entries", { cache: "credspec" })).toBe(1);
    expect(sumOf(families, "gmsa_webhooks_token_refreshes_total", { source: "token_file", outcome: "success" })).toBe(
      1,
    );
  });

  it("has prom-client's default process and Node.js metrics", () => {
    const types = Object.fromEntries(families.map((family) => [family.name, family.type]));
    expect(types).toMatchObject({
      process_cpu_seconds: "counter",
      process_resident_memory_bytes: "gauge",
      process_start_time_seconds: "gauge",
      process_open_fds: "gauge",
      nodejs_heap_size_total_bytes: "gauge",
      nodejs_heap_size_used_bytes: "gauge",
      nodejs_external_memory_bytes: "gauge",
      nodejs_eventloop_lag_seconds: "gauge",
      nodejs_version_info: "gauge",
    });
  });

  it("takes no label value from a review: the distinctive pod's names appear nowhere", () => {
    for (const value of Object.values(DISTINCT)) expect(text).not.toContain(value);
    const labelValues = new Set(
      families
        .filter((f) => f.name.startsWith("gmsa_webhooks_"))
        .flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels))),
    );
    const allowed =
      /^(expand|authorize|CREATE|UPDATE|DELETE|CONNECT|other|allowed|denied|\d{3}|error|timeout|get|create|gmsacredentialspecs|localsubjectaccessreviews|selfsubjectaccessreviews|exec|token_file|jwt|eks|aks|gke|success|failure|credspec|access|hit|miss|[+]Inf|[\d.e+-]+)$/;
    for (const value of labelValues) expect(value).toMatch(allowed);
  });

  it("puts the same facts in each review's log line", () => {
    expect(logFor("allowed-1")).toMatchObject({
      allowed: true,
      kubeRequests: 1,
      cacheHits: 0,
      cacheMisses: 1,
      tokenRefresh: "success",
    });
    expect(logFor("allowed-cached")).toMatchObject({ allowed: true, kubeRequests: 0, cacheHits: 1, cacheMisses: 0 });
    expect(logFor("allowed-cached")).not.toHaveProperty("tokenRefresh");
    expect(logFor("denied-500")).toMatchObject({ allowed: false, code: 500, kubeRequests: 2, cacheMisses: 1 });
    expect(logFor("authorized-1")).toMatchObject({ allowed: true, kubeRequests: 1, cacheHits: 1, cacheMisses: 1 });
  });
});

describe("the Node server's metrics", () => {
  const counters = (credspecs: number, execRuns?: ExecRunCounters) => ({
    credSpecCache: { hits: 0, misses: 0, size: credspecs },
    accessCache: { hits: 0, misses: 0, size: 0 },
    ...(execRuns === undefined ? {} : { execRuns }),
  });

  it("read the client's counters at each scrape, as they are then", async () => {
    const metrics = createPrometheusMetrics();
    let now = counters(0);
    metrics.collectKubeCounters(() => now);
    const scrape = async () => parseMetrics((await metrics.exposition()).body);
    expect(sumOf(await scrape(), "gmsa_webhooks_cache_entries", { cache: "credspec" })).toBe(0);
    expect(samplesOf(await scrape(), "gmsa_webhooks_exec_plugin_runs_total")).toEqual([]);
    now = counters(3, { success: 2, pluginError: 1, notFound: 0, timeout: 0 });
    let families = await scrape();
    expect(sumOf(families, "gmsa_webhooks_cache_entries", { cache: "credspec" })).toBe(3);
    expect(sumOf(families, "gmsa_webhooks_exec_plugin_runs_total", { outcome: "success" })).toBe(2);
    // The client's totals are copied, not added up scrape after scrape.
    families = await scrape();
    expect(sumOf(families, "gmsa_webhooks_exec_plugin_runs_total", { outcome: "success" })).toBe(2);
    expect(sumOf(families, "gmsa_webhooks_exec_plugin_runs_total", { outcome: "pluginError" })).toBe(1);
  });

  it("refuse a second set of the client's counters, whose family names would repeat", async () => {
    const metrics = createPrometheusMetrics();
    metrics.collectKubeCounters(() => counters(1));
    expect(() => metrics.collectKubeCounters(() => counters(2))).toThrow(/already been registered/);
    const families = await parseMetrics((await metrics.exposition()).body);
    expect(families.filter((family) => family.name === "gmsa_webhooks_cache_entries")).toHaveLength(1);
  });

  it("keep each set of metrics in its own registry", async () => {
    const first = createPrometheusMetrics();
    const second = createPrometheusMetrics();
    first.reviews.record("expand", true, undefined, "CREATE", 1);
    const count = async (metrics: typeof first) =>
      sumOf(await parseMetrics((await metrics.exposition()).body), "gmsa_webhooks_reviews_total");
    expect([await count(first), await count(second)]).toEqual([1, 0]);
  });
});
