/**
 * The floor of sections F and G: the least a Node HTTPS webhook pair does (allowed; expand with a fixed patch),
 * bundled and started as ours are, to separate what the API server and transport cost from what the functions add.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueClusterServingCertificate, kubeRequest, type LocalClusterInfo } from "../../infra/local/index.ts";
import { nodeBinary } from "../../infra/build/tools/node-binary.ts";
import { freePort, startProcess, stopProcess, waitFor, type ManagedProcess } from "../../infra/local/processes.ts";
import { createTeardown, recordProcessGroup } from "../../infra/local/teardown.ts";
import { bundleNodeFunction } from "../../infra/build/node/bundle-function.ts";
import { NODE_SERVER_OPTIONS } from "../../infra/build/node/heap-limits.ts";

/** A running floor webhook, shaped like the part of a functions stack the webhook helpers need. */
export interface MinimalWebhook {
  expandBaseUrl: string;
  authorizeBaseUrl: string;
  metrics(fn: "expand" | "authorize"): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Starts the floor webhook for pods whose pod-level credspec is `credspec`. Its folder (certificate, log) goes with
 * `stop()`, or with the teardown on exit, signals or a killed parent, as for the stack.
 */
export async function startMinimalWebhook(cluster: LocalClusterInfo, credspec: unknown): Promise<MinimalWebhook> {
  const dir = await mkdtemp(join(tmpdir(), "gmsa-bench-minimal-"));
  let child: ManagedProcess | undefined;
  const { target, teardown: stop } = createTeardown(dir, async () => {
    if (child !== undefined) await stopProcess(child);
  });
  try {
    const serving = await issueClusterServingCertificate(cluster, ["127.0.0.1"]);
    const port = await freePort();
    const patch = [
      { op: "add", path: "/spec/securityContext/windowsOptions/gmsaCredentialSpec", value: JSON.stringify(credspec) },
    ];
    const bundle = await bundleNodeFunction({
      entry: "test/bench/minimal-webhook-server.ts",
      outdir: join(dir, "bundle"),
    });
    const args = [
      ...NODE_SERVER_OPTIONS.split(" "),
      join(dir, "bundle", bundle.entry),
      String(port),
      serving.certFile,
      serving.keyFile,
    ];
    child = await startProcess("minimal webhook", nodeBinary(), args, join(dir, "minimal-webhook.log"), {
      env: { ...process.env, MINIMAL_WEBHOOK_PATCH: Buffer.from(JSON.stringify(patch)).toString("base64") },
    });
    recordProcessGroup(target, child.pid);
    const endpoint = { server: `https://127.0.0.1:${port}`, caPem: cluster.caPem };
    await waitFor(
      "minimal webhook /healthz",
      30_000,
      [child],
      async () => (await kubeRequest(endpoint, "/healthz", { timeoutMs: 2000 })).status === 200,
    );
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
