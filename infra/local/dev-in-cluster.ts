/**
 * `npm run dev -- --in-cluster`: the chart as an operator installs it, on a real node of the local cluster
 * (in-cluster.ts): `helm install` in inCluster mode with the production image, both functions with two Ready
 * replicas behind their Services, the webhooks registered by service reference. Prints the example; Ctrl-C stops the
 * node and the cluster and undoes every host change. `--check` runs `gmsa-webhooks doctor` and creates the example pod
 * once, and exits 0 when both pass, else 1.
 */
import { execFile } from "node:child_process";
import { REPO_ROOT } from "../build/repo-root.ts";
import { exampleCommand, runExample } from "./dev-example.ts";
import { nodeBinary } from "../build/tools/node-binary.ts";
import {
  applySamples,
  installChart,
  localNodeValues,
  startInClusterStack,
  waitForDeployments,
  type InClusterStack,
} from "./in-cluster.ts";
import { watchParent } from "./parent-watch.ts";

/** The release and namespace `npm run dev -- --in-cluster` installs. */
const RELEASE = "gmsa-webhooks";
const NAMESPACE = "gmsa-in-cluster";

function progress(message: string): void {
  process.stderr.write(`[dev] ${message}\n`);
}

/** The real `gmsa-webhooks doctor` against the install, as an operator runs it; its report goes to stdout. */
function runDoctorCli(kubeconfig: string): Promise<number> {
  return new Promise((resolve) => {
    const args = ["cli/gmsa-webhooks.ts", "doctor", "--kubeconfig", kubeconfig];
    execFile(
      nodeBinary(),
      args,
      { cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        process.stdout.write(stdout);
        process.stderr.write(stderr);
        resolve(error === null ? 0 : typeof error.code === "number" ? error.code : 1);
      },
    );
  });
}

function printReady(stack: InClusterStack, seconds: string): void {
  const { cluster, node, image } = stack;
  console.log(`
gmsa-webhooks: local cluster with a node ready in ${seconds} s; the chart runs both functions in the cluster.

  API server  ${cluster.server} (Kubernetes ${cluster.kubeVersion})
  kubeconfig  ${cluster.adminKubeconfig}
  node        ${node.name} (kubelet + containerd), image ${image.name} ${image.digest}
  chart       helm release ${RELEASE} in namespace ${NAMESPACE}, two replicas per function

Create the example pod (infra/deploy/samples/pod.yaml: service account gmsa-app, credspec webapp01) and show
the credspec the webhooks inlined:

  ${exampleCommand(cluster)}

Check the install (docs/doctor.md):
  npx gmsa-webhooks doctor --kubeconfig ${cluster.adminKubeconfig}

Pods and their logs:
  KUBECONFIG=${cluster.adminKubeconfig} kubectl -n ${NAMESPACE} get pods -o wide
  KUBECONFIG=${cluster.adminKubeconfig} kubectl -n ${NAMESPACE} logs deploy/${RELEASE}-expand
Node logs: ${node.dir}/{kubelet,containerd,kube-scheduler,kube-controller-manager}.log

Ctrl-C stops everything, undoes the node's host changes and deletes ${cluster.dir} and ${node.dir}.`);
}

/**
 * Runs the in-cluster local cluster of `kubeVersion` (`1.30`; default the newest pinned) until a signal (or once with
 * `check`); resolves with the exit code.
 */
export async function runInClusterDev(check: boolean, kubeVersion?: string): Promise<number> {
  let stack: InClusterStack | undefined;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping the node and the cluster…`);
      void (stack?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
    });
  }
  // The same stop as a signal when npm is gone without passing one on (parent-watch.ts).
  watchParent(() => process.kill(process.pid, "SIGTERM"));
  const started = Date.now();
  try {
    stack = await startInClusterStack({ progress, ...(kubeVersion === undefined ? {} : { kubeVersion }) });
    progress(`helm install ${RELEASE} (inCluster mode, image ${stack.image.name})`);
    await installChart(stack, RELEASE, NAMESPACE, localNodeValues(stack.image, stack.callerToken));
    progress("applying infra/deploy/samples: the service account gmsa-app and the credspecs it may use");
    await applySamples(stack.cluster);
    progress("waiting until both functions have two Ready replicas");
    await waitForDeployments(stack.cluster, NAMESPACE, RELEASE, 2);
    printReady(stack, ((Date.now() - started) / 1000).toFixed(1));
    if (!check) {
      setInterval(() => undefined, 1 << 30);
      return await new Promise<number>(() => undefined);
    }
    progress("--check: gmsa-webhooks doctor on the install");
    const doctor = await runDoctorCli(stack.cluster.adminKubeconfig);
    console.log(`doctor: exit ${doctor}`);
    progress("--check: creating infra/deploy/samples/pod.yaml once");
    const result = await runExample(stack.cluster);
    console.log(`\ncheck: pod ${result.podName}: gmsaCredentialSpec ${result.detail}\n${result.contents ?? "(none)"}`);
    const ok = result.ok && doctor === 0;
    console.log(ok ? "check passed" : "check FAILED");
    await stack.stop();
    progress(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return ok ? 0 : 1;
  } catch (error) {
    console.error(`npm run dev -- --in-cluster failed: ${error instanceof Error ? error.message : String(error)}`);
    await stack?.stop();
    return 1;
  }
}
