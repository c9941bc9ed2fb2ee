/**
 * The Go reference (kubernetes-sigs/windows-gmsa's admission-webhook, given as GMSA_REF_BIN) against the local API
 * server. It reads client-go's in-cluster files at a fixed path, so it runs under `unshare --mount` with our folder
 * bind-mounted over /run; this file is that launcher too, then becomes the binary (`process.execve`, same pid).
 * Nothing here fetches or builds it.
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  adminEndpoint,
  applyObjects,
  kubeRequestOk,
  type KubeObject,
  type LocalClusterInfo,
} from "../../infra/local/index.ts";
import { FUNCTIONS_NAMESPACE } from "../../infra/local/function-tokens.ts";
import { nodeBinary } from "../../infra/build/tools/node-binary.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { serviceAccount } from "../e2e/support/core-objects.ts";
import { binding, role, sa } from "../support/rbac.ts";
import { serverTargets, type RunningTargets } from "./measured-target.ts";
import { startServerProcess, type ServerProcess } from "./minimal-webhook.ts";

export const REFERENCE_SERVER_NAME = "windows-gmsa (Go)";
/** The reference's service account, in the functions' namespace. */
const SERVICE_ACCOUNT = "gmsa-reference";
/** The user the reference calls the API server as, for counting its calls in the audit log. */
export const REFERENCE_USER = `system:serviceaccount:${FUNCTIONS_NAMESPACE}:${SERVICE_ACCOUNT}`;

/** client-go's client-side rate limit (the reference's `QPS` and `BURST` variables). */
export interface ReferenceLimiter {
  qps: number;
  burst: number;
}

/** Raised so far that the limiter is not what is measured; its chart's defaults are QPS 30, burst 50. */
export const RAISED_LIMITER: ReferenceLimiter = { qps: 1000, burst: 2000 };
export const REFERENCE_PATHS: Record<FunctionName, string> = { expand: "/mutate", authorize: "/validate" };
/** client-go's fixed in-cluster path, under /run (/var/run is a link to it). */
const SERVICE_ACCOUNT_DIR = ["secrets", "kubernetes.io", "serviceaccount"];

/** A running reference: one process serving both paths. */
export type RunningReference = ServerProcess & RunningTargets;

/** Its service account and the RBAC of its deploy template: get credspecs, create LocalSubjectAccessReviews. */
function referenceObjects(): KubeObject[] {
  return [
    serviceAccount(SERVICE_ACCOUNT, FUNCTIONS_NAMESPACE),
    role(SERVICE_ACCOUNT, [
      { apiGroups: ["windows.k8s.io"], resources: ["gmsacredentialspecs"], verbs: ["get"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["localsubjectaccessreviews"], verbs: ["create"] },
    ]),
    binding(SERVICE_ACCOUNT, { kind: "ClusterRole", name: SERVICE_ACCOUNT }, [
      sa(SERVICE_ACCOUNT, FUNCTIONS_NAMESPACE),
    ]),
  ];
}

/** A TokenRequest token for the reference's service account (an hour: longer than any bench run). */
async function mintToken(cluster: LocalClusterInfo): Promise<string> {
  const path = `/api/v1/namespaces/${FUNCTIONS_NAMESPACE}/serviceaccounts/${SERVICE_ACCOUNT}/token`;
  const body = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } };
  const answer = await kubeRequestOk<{ status: { token: string } }>(adminEndpoint(cluster), path, {
    method: "POST",
    body,
  });
  return answer.status.token;
}

/**
 * Starts the reference at `bin` against `cluster` (base infra applied) with its client-side limiter at `limiter`.
 * @throws Error with the tail of its log when it does not start.
 */
export async function startReference(
  cluster: LocalClusterInfo,
  bin: string,
  limiter: ReferenceLimiter = RAISED_LIMITER,
): Promise<RunningReference> {
  const server = await startServerProcess(
    cluster,
    "windows-gmsa reference",
    { path: "/health", status: 204 },
    async (dir, port, serving) => {
      await applyObjects(adminEndpoint(cluster), referenceObjects());
      const runDir = join(dir, "run");
      const accountDir = join(runDir, ...SERVICE_ACCOUNT_DIR);
      await mkdir(accountDir, { recursive: true });
      await writeFile(join(accountDir, "token"), await mintToken(cluster), { mode: 0o600 });
      await writeFile(join(accountDir, "ca.crt"), cluster.caPem);
      await writeFile(join(accountDir, "namespace"), FUNCTIONS_NAMESPACE);
      const api = new URL(cluster.server);
      const env = {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        KUBERNETES_SERVICE_HOST: api.hostname,
        KUBERNETES_SERVICE_PORT: api.port,
        TLS_CRT: serving.certFile,
        TLS_KEY: serving.keyFile,
        HTTPS_PORT: String(port),
        // Without them client-go's own default limiter (5 QPS, burst 10) would be what is measured.
        QPS: String(limiter.qps),
        BURST: String(limiter.burst),
        // Its default, debug, logs every request and response body.
        LOG_LEVEL: "info",
      };
      const args = ["--mount", "--propagation", "private", nodeBinary(), fileURLToPath(import.meta.url), runDir, bin];
      return { file: "unshare", args, env };
    },
  );
  const url = (fn: FunctionName) => `${server.baseUrl}${REFERENCE_PATHS[fn]}?timeout=10s`;
  return { ...server, targets: serverTargets(REFERENCE_SERVER_NAME, cluster.caPem, () => server.pid, url) };
}

/** Inside `unshare --mount`: our folder over /run, then become the reference (same pid). */
function launch(runDir: string, bin: string): never {
  execFileSync("mount", ["--bind", runDir, "/run"], { stdio: "inherit" });
  return process.execve!(bin, [bin], process.env);
}

if (import.meta.main) {
  const [runDir, bin] = process.argv.slice(2);
  if (runDir === undefined || bin === undefined) {
    console.error("usage: unshare --mount node test/bench/reference.ts <run folder> <admission-webhook binary>");
    process.exit(2);
  }
  launch(runDir, bin);
}
