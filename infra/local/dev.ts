/**
 * `npm run dev`: a local cluster with both webhooks registered by URL and really called.
 *
 * Builds kube-apiserver and etcd when needed (build.ts), starts them with an admission
 * configuration that sends a bearer token to webhooks, applies infra/, starts expand and authorize
 * (stack.ts: Node servers, or the Worker builds in Miniflare with `--worker` or
 * `GMSA_DEV_RUNTIME=worker`), registers infra/deploy/webhooks/ and waits until the API server calls both.
 * Then prints the kubeconfig, one command to try, and where the logs are; Ctrl-C or SIGTERM stops
 * everything and deletes every temporary file.
 *
 * `--kube-version 1.30` (or `KUBE_VERSION=1.30`): runs that Kubernetes version's kube-apiserver instead of the newest
 * pinned one (kube-versions.ts lists them), built beside the others on first use; with `--in-cluster`, the node's
 * kubelet, kube-scheduler and kube-controller-manager too.
 *
 * `--in-cluster`: the chart on a real node instead (dev-in-cluster.ts): kubelet, containerd, the production image,
 * `helm install` in inCluster mode; needs root.
 *
 * `--check` (or `GMSA_DEV_CHECK=1`): the same start-up, then creates infra/deploy/samples/pod.yaml once
 * (what the printed command does), prints the result and exits 0 when the credspec was inlined, 1
 * otherwise, after cleaning up. `LOG_LEVEL` is passed on to the functions.
 */
import { parseArgs } from "node:util";
import { applyBaseInfra } from "./apply.ts";
import { ensureBinaries } from "./build.ts";
import { startCluster, type LocalCluster, type LocalClusterInfo } from "./cluster.ts";
import { runInClusterDev } from "./dev-in-cluster.ts";
import { exampleCommand, runExample } from "./dev-example.ts";
import { applyFunctionsWebhooks, startFunctions, type FunctionsRuntime, type FunctionsStack } from "./stack.ts";
import { createCallerToken } from "./webhook-caller-auth.ts";
import { watchParent } from "./parent-watch.ts";

function progress(message: string): void {
  process.stderr.write(`[dev] ${message}\n`);
}

function readOptions(): {
  runtime: FunctionsRuntime;
  check: boolean;
  kubeVersion: string | undefined;
  inCluster: boolean;
} {
  const { values } = parseArgs({
    options: {
      worker: { type: "boolean", default: false },
      "in-cluster": { type: "boolean", default: false },
      check: { type: "boolean", default: false },
      "kube-version": { type: "string" },
    },
  });
  const runtimeVariable = process.env.GMSA_DEV_RUNTIME;
  if (
    runtimeVariable !== undefined &&
    runtimeVariable !== "" &&
    runtimeVariable !== "node" &&
    runtimeVariable !== "worker"
  ) {
    throw new TypeError(`GMSA_DEV_RUNTIME must be node or worker, got ${runtimeVariable}`);
  }
  const runtime = values.worker || runtimeVariable === "worker" ? "worker" : "node";
  return {
    runtime,
    check: values.check || process.env.GMSA_DEV_CHECK === "1",
    kubeVersion: values["kube-version"] ?? process.env.KUBE_VERSION,
    inCluster: values["in-cluster"],
  };
}

function printReady(cluster: LocalClusterInfo, stack: FunctionsStack, seconds: string): void {
  const runtime = stack.runtime === "node" ? "Node servers" : "Worker builds in Miniflare (workerd)";
  console.log(`
gmsa-webhooks: local cluster ready in ${seconds} s, both webhooks called by the API server (${runtime}).

  API server  ${cluster.server} (Kubernetes ${cluster.kubeVersion})
  kubeconfig  ${cluster.adminKubeconfig}
  expand      ${stack.expandBaseUrl}/expand
  authorize   ${stack.authorizeBaseUrl}/authorize

Create the example pod (infra/deploy/samples/pod.yaml: service account gmsa-app, credspec webapp01) and show
the credspec the webhooks inlined:

  ${exampleCommand(cluster)}

Function logs (one JSON line per review):
  tail -f ${stack.logFiles.expand} ${stack.logFiles.authorize}
API server log: ${cluster.apiserverLogFile}; pod audit log: ${cluster.auditLogFile}

Ctrl-C stops everything and deletes ${cluster.dir}.`);
}

async function main(): Promise<number> {
  const { runtime, check, kubeVersion, inCluster } = readOptions();
  if (inCluster) return runInClusterDev(check, kubeVersion);
  let cluster: LocalCluster | undefined;
  let stack: FunctionsStack | undefined;
  const stopAll = async (): Promise<void> => {
    await stack?.stop();
    await cluster?.stop();
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping the functions and the cluster…`);
      void stopAll().finally(() => process.exit(0));
    });
  }
  // The same stop as a signal when npm is gone without passing one on (parent-watch.ts).
  watchParent(() => process.kill(process.pid, "SIGTERM"));
  try {
    progress("checking kube-apiserver and etcd (built from source on first use: about 5 minutes)");
    const binaries = await ensureBinaries(kubeVersion);
    const started = Date.now();
    progress(`starting etcd and kube-apiserver ${binaries.kubeVersion}`);
    cluster = await startCluster({ binaries, webhookCallerToken: createCallerToken() });
    progress("applying infra/: CRD, RBAC, sample credspecs");
    await applyBaseInfra(cluster);
    progress(`starting expand and authorize (${runtime})`);
    // Every review in the log by default: the Node server writes allowed ones at debug.
    const env: Record<string, string> = { LOG_LEVEL: process.env.LOG_LEVEL ?? "debug" };
    stack = await startFunctions(cluster, { runtime, dir: cluster.dir, env });
    progress("registering infra/deploy/webhooks/ and waiting until the API server calls both functions");
    await applyFunctionsWebhooks(cluster, stack);
    printReady(cluster, stack, ((Date.now() - started) / 1000).toFixed(1));
    if (!check) {
      // Keeps the event loop alive until a signal arrives (the servers' handles are unref'd).
      setInterval(() => undefined, 1 << 30);
      return await new Promise<number>(() => undefined);
    }
    progress("--check: creating infra/deploy/samples/pod.yaml once");
    const result = await runExample(cluster);
    console.log(`\ncheck: pod ${result.podName}: gmsaCredentialSpec ${result.detail}\n${result.contents ?? "(none)"}`);
    console.log(result.ok ? "check passed" : "check FAILED");
    await stopAll();
    return result.ok ? 0 : 1;
  } catch (error) {
    console.error(`npm run dev failed: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll();
    return 1;
  }
}

process.exit(await main());
