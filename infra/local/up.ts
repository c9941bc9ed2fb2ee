/**
 * `node infra/local/up.ts`: builds (once), starts a local cluster, applies infra/ without the
 * webhooks, prints how to reach it, and stops everything on Ctrl-C.
 */
import { applyBaseInfra } from "./apply.ts";
import { ensureBinaries } from "./build.ts";
import { startCluster } from "./cluster.ts";

const binaries = await ensureBinaries();
const started = Date.now();
const cluster = await startCluster({ binaries });
await applyBaseInfra(cluster);
const seconds = ((Date.now() - started) / 1000).toFixed(1);

console.log(`Local cluster ready in ${seconds} s at ${cluster.server} (Ctrl-C stops it and deletes ${cluster.dir}).

  export KUBECONFIG=${cluster.adminKubeconfig}
  kubectl get gmsacredentialspecs
  kubectl auth can-i use gmsacredentialspecs/webapp01 --as=system:serviceaccount:default:gmsa-app

Logs: ${cluster.apiserverLogFile}, ${cluster.etcdLogFile}; pod audit log: ${cluster.auditLogFile}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log("\nstopping…");
    void cluster.stop().then(() => process.exit(0));
  });
}
// Keeps the event loop alive until a signal arrives (the servers' handles are unref'd).
setInterval(() => undefined, 1 << 30);
