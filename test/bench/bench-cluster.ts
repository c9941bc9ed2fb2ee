/** The local etcd + kube-apiserver, auditing the functions' calls, with the base infra and the bench's credspecs. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  createCallerToken,
  ensureBinaries,
  kubeRequestOk,
  startCluster,
  type KubeObject,
  type LocalCluster,
  type LocalClusterInfo,
} from "../../infra/local/index.ts";
import { BENCH_AUDIT_POLICY } from "./audit.ts";
import {
  BENCH_NAMESPACE,
  BENCH_SERVICE_ACCOUNT,
  benchCredSpec,
  benchCredSpecNames,
  credSpecObject,
} from "./bench-pods.ts";
import { binding, sa, useCredSpecs } from "../support/rbac.ts";

export interface BenchCluster {
  cluster: LocalCluster;
  /** The `credspec` of each benchmark GMSACredentialSpec as the API server returns it. */
  credspecs: Map<string, unknown>;
  stop(): Promise<void>;
}

/** The `credspec` of GMSACredentialSpec `name` as the API server returns it. */
export async function readCredSpec(cluster: LocalClusterInfo, name: string): Promise<unknown> {
  const path = `/apis/windows.k8s.io/v1/gmsacredentialspecs/${name}`;
  return (await kubeRequestOk<{ credspec: unknown }>(adminEndpoint(cluster), path)).credspec;
}

/** The benchmark's credspecs and the RBAC that lets gmsa-app use them. */
function benchObjects(): KubeObject[] {
  const names = benchCredSpecNames();
  return [
    ...names.map((name, i) => credSpecObject(name, benchCredSpec(i))),
    useCredSpecs("gmsa-bench-use", names),
    binding(
      "gmsa-bench-use",
      { kind: "ClusterRole", name: "gmsa-bench-use" },
      [sa(BENCH_SERVICE_ACCOUNT, BENCH_NAMESPACE)],
      BENCH_NAMESPACE,
    ),
  ];
}

/** Builds (if needed) and starts the cluster and applies everything but the webhooks. */
export async function startBenchCluster(log: (line: string) => void): Promise<BenchCluster> {
  const binaries = await ensureBinaries();
  const policyDir = await mkdtemp(join(tmpdir(), "gmsa-bench-"));
  const policyFile = join(policyDir, "audit-policy.json");
  await writeFile(policyFile, JSON.stringify(BENCH_AUDIT_POLICY));
  const started = performance.now();
  let cluster: LocalCluster | undefined;
  const stop = async () => {
    await cluster?.stop();
    await rm(policyDir, { recursive: true, force: true });
  };
  try {
    cluster = await startCluster({
      binaries,
      webhookCallerToken: createCallerToken(),
      // Later flags win: our policy replaces the local cluster's pods-only one.
      // Rotation would lose the calls being counted (audit.ts): kube-apiserver rotates at 100 MB by default, which
      // the rollout's creates and the growth's calls pass.
      extraApiserverArgs: [`--audit-policy-file=${policyFile}`, "--audit-log-maxsize=4096"],
    });
    log(`cluster ready at ${cluster.server} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await applyBaseInfra(cluster);
    const admin = adminEndpoint(cluster);
    await applyObjects(admin, benchObjects());
    const credspecs = new Map<string, unknown>();
    for (const name of benchCredSpecNames()) credspecs.set(name, await readCredSpec(cluster, name));
    return { cluster, credspecs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
