/**
 * The floor for section F: the least a Node HTTPS webhook pair can do. One process serves `/expand`
 * (allowed, with a fixed JSON Patch that inlines the sample credspec, so the API server applies a
 * patch as it does for expand) and `/authorize` (allowed), with no parsing beyond JSON.parse, no
 * caller auth, no API call and no log. Comparing pod creates through it with pod creates through the
 * functions separates what the API server and the transport cost from what the functions add.
 *
 * `node test/bench/minimal-webhook.ts <port> <certFile> <keyFile>`, the base64 patch in
 * MINIMAL_WEBHOOK_PATCH. Started by {@link startMinimalWebhook}.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalClusterInfo } from "../../infra/local/cluster.ts";
import { issueClusterServingCertificate } from "../../infra/local/cluster.ts";
import { kubeRequest } from "../../infra/local/kube-request.ts";
import { nodeBinary } from "../../infra/local/node-binary.ts";
import { freePort, startProcess, stopProcess, waitFor, type ManagedProcess } from "../../infra/local/processes.ts";
import { recordProcessGroup, registerTeardown, type TeardownTarget } from "../../infra/local/teardown.ts";

/** A running floor webhook, shaped like the part of a functions stack the webhook helpers need. */
export interface MinimalWebhook {
  expandBaseUrl: string;
  authorizeBaseUrl: string;
  metrics(fn: "expand" | "authorize"): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Starts the floor webhook for pods whose pod-level credspec is `credspec` (infra/samples/pod.yaml).
 * Its certificate, log and process go with a folder of its own, removed by `stop()` (and by the
 * teardown on exit, signals or a killed parent, as for the stack).
 */
export async function startMinimalWebhook(cluster: LocalClusterInfo, credspec: unknown): Promise<MinimalWebhook> {
  const dir = await mkdtemp(join(tmpdir(), "gmsa-bench-minimal-"));
  let child: ManagedProcess | undefined;
  const target: TeardownTarget = { dir, pgids: [], stop: () => stop() };
  const unregister = registerTeardown(target);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (child !== undefined) await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
      unregister();
    })());
  try {
    const serving = await issueClusterServingCertificate(cluster, ["127.0.0.1"]);
    const port = await freePort();
    const patch = [{ op: "add", path: "/spec/securityContext/windowsOptions/gmsaCredentialSpec", value: JSON.stringify(credspec) }];
    const script = fileURLToPath(import.meta.url);
    child = await startProcess("minimal webhook", nodeBinary(), [script, String(port), serving.certFile, serving.keyFile], join(dir, "minimal-webhook.log"), {
      env: { ...process.env, MINIMAL_WEBHOOK_PATCH: Buffer.from(JSON.stringify(patch)).toString("base64") },
    });
    recordProcessGroup(target, child.pid);
    const endpoint = { server: `https://127.0.0.1:${port}`, caPem: cluster.caPem };
    await waitFor("minimal webhook /healthz", 30_000, [child], async () => (await kubeRequest(endpoint, "/healthz", { timeoutMs: 2000 })).status === 200);
    return {
      expandBaseUrl: endpoint.server,
      authorizeBaseUrl: endpoint.server,
      metrics: async () => (await kubeRequest<Record<string, number>>(endpoint, "/metrics")).body,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function serve(port: number, certFile: string, keyFile: string, patch: string): void {
  let authorizeReviews = 0;
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET") {
      res.setHeader("content-type", path === "/metrics" ? "application/json" : "text/plain");
      res.end(path === "/metrics" ? JSON.stringify({ authorize_reviews_total: authorizeReviews }) : "ok");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { apiVersion: string; request: { uid: string } };
      const expand = path === "/expand";
      if (!expand) authorizeReviews++;
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          apiVersion: review.apiVersion,
          kind: "AdmissionReview",
          response: { uid: review.request.uid, allowed: true, ...(expand ? { patchType: "JSONPatch", patch } : {}) },
        }),
      );
    });
  });
  server.listen(port, "127.0.0.1");
  process.once("SIGTERM", () => server.close(() => process.exit(0)));
}

if (import.meta.main) {
  const [port, certFile, keyFile] = process.argv.slice(2);
  const patch = process.env["MINIMAL_WEBHOOK_PATCH"];
  if (port === undefined || certFile === undefined || keyFile === undefined || patch === undefined) {
    console.error("usage: MINIMAL_WEBHOOK_PATCH=<base64> node test/bench/minimal-webhook.ts <port> <certFile> <keyFile>");
    process.exit(2);
  }
  serve(Number(port), certFile, keyFile, patch);
}
