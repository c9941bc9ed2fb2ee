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
import type { WebhookTargets } from "../../infra/local/stack-webhooks.ts";
import { createTeardown, recordProcessGroup } from "../../infra/local/teardown.ts";
import { tailFile } from "../../infra/build/tools/tail-file.ts";
import { bundleNodeFunction } from "../../infra/build/node/bundle-function.ts";
import { NODE_SERVER_OPTIONS } from "../../infra/build/node/heap-limits.ts";

/** A running floor webhook, shaped like the part of a functions stack the webhook helpers need. */
export type MinimalWebhook = WebhookTargets & Omit<ServerProcess, "baseUrl">;

/** A started server process of the bench: its URL and pid; `stop()` stops it and removes its folder. */
export interface ServerProcess {
  /** `https://127.0.0.1:<port>`. */
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `name` on a free port with a certificate the cluster CA signed, in a folder of its own that goes with
 * `stop()`, or with the teardown on exit, signals or a killed parent, as for the stack; `command` prepares the folder
 * and gives the command line. Ready once `health.path` answers `health.status`.
 * @throws Error with the tail of its log when it does not start.
 */
export async function startServerProcess(
  cluster: LocalClusterInfo,
  name: string,
  health: { path: string; status: number },
  command: (
    dir: string,
    port: number,
    serving: { certFile: string; keyFile: string },
  ) => Promise<{ file: string; args: string[]; env: NodeJS.ProcessEnv }>,
): Promise<ServerProcess> {
  const dir = await mkdtemp(join(tmpdir(), "gmsa-bench-server-"));
  let child: ManagedProcess | undefined;
  const { target, teardown: stop } = createTeardown(dir, async () => {
    if (child !== undefined) await stopProcess(child);
  });
  const logFile = join(dir, "server.log");
  try {
    const serving = await issueClusterServingCertificate(cluster, ["127.0.0.1", "localhost"]);
    const port = await freePort();
    const { file, args, env } = await command(dir, port, serving);
    child = await startProcess(name, file, args, logFile, { env });
    recordProcessGroup(target, child.pid);
    const endpoint = { server: `https://127.0.0.1:${port}`, caPem: cluster.caPem };
    await waitFor(`${name} ${health.path}`, 30_000, [child], async () => {
      return (await kubeRequest(endpoint, health.path, { timeoutMs: 2000 })).status === health.status;
    });
    return { baseUrl: endpoint.server, pid: child.pid, stop };
  } catch (error) {
    const tail = await tailFile(logFile);
    await stop();
    throw new Error(`${name} did not start: ${(error as Error).message}\n${tail}`, { cause: error });
  }
}

/** Starts the floor webhook for pods whose pod-level credspec is `credspec`. */
export async function startMinimalWebhook(cluster: LocalClusterInfo, credspec: unknown): Promise<MinimalWebhook> {
  const server = await startServerProcess(
    cluster,
    "minimal webhook",
    { path: "/healthz", status: 200 },
    async (dir, port, serving) => {
      const patch = [
        { op: "add", path: "/spec/securityContext/windowsOptions/gmsaCredentialSpec", value: JSON.stringify(credspec) },
      ];
      const bundle = await bundleNodeFunction({
        entry: "test/bench/minimal-webhook-server.ts",
        outdir: join(dir, "bundle"),
      });
      return {
        file: nodeBinary(),
        args: [
          ...NODE_SERVER_OPTIONS.split(" "),
          join(dir, "bundle", bundle.entry),
          String(port),
          serving.certFile,
          serving.keyFile,
        ],
        env: { ...process.env, MINIMAL_WEBHOOK_PATCH: Buffer.from(JSON.stringify(patch)).toString("base64") },
      };
    },
  );
  const endpoint = { server: server.baseUrl, caPem: cluster.caPem };
  return {
    expandBaseUrl: server.baseUrl,
    authorizeBaseUrl: server.baseUrl,
    pid: server.pid,
    metrics: async () => (await kubeRequest<Record<string, number>>(endpoint, "/metrics")).body,
    stop: server.stop,
  };
}
