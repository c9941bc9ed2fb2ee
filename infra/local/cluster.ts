/**
 * A real control plane on loopback: etcd + kube-apiserver, no kubelet, no controller-manager,
 * no container engine. Everything lives in one temporary folder removed by `stop()`.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinaries, type LocalBinaries } from "./build.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { kubeRequest, type KubeEndpoint } from "./kube-request.ts";
import {
  createCertificateAuthority,
  createServiceAccountKeys,
  issueServingCertificate,
  type CertificateAuthority,
  type CertificatePair,
} from "./pki.ts";
import { tailFile } from "../build/tools/tail-file.ts";
import { freePort, startProcess, stopProcess, waitFor, type ManagedProcess } from "./processes.ts";
import {
  buildAuthenticationConfiguration,
  startJwtIssuer,
  type LocalJwtIssuer,
  type LocalJwtIssuerInfo,
} from "./jwt-issuer-server.ts";
import { authenticationConfigurationApiVersion } from "./kube-versions.ts";
import { apiserverFlags, AUDIT_POLICY, etcdFlags, KUBERNETES_SERVICE_IP } from "./server-flags.ts";
import { createTeardown, recordProcessGroup } from "./teardown.ts";
import { writeWebhookCallerAuth } from "./webhook-caller-auth.ts";

/** The static-token user that may only mint the functions' tokens (infra/local/token-minter.yaml). */
export const MINTER_USER = "gmsa-token-minter";

/** Everything about a running cluster that survives JSON (vitest's `provide`), no methods. */
export interface LocalClusterInfo {
  /** https URL of the API server, e.g. `https://127.0.0.1:40123`. */
  server: string;
  /** The Kubernetes version of kube-apiserver, e.g. `v1.37.2` (kube-versions.ts gates features by it). */
  kubeVersion: string;
  /** PEM of the cluster CA: it signs the API server's and the webhooks' serving certificates. */
  caPem: string;
  caFile: string;
  /** The temporary folder holding keys, data, logs and kubeconfigs. */
  dir: string;
  /** Bearer token of `gmsa-local-admin`, a member of `system:masters`. */
  adminToken: string;
  /** Kubeconfig for the admin token (for kubectl). */
  adminKubeconfig: string;
  /** Kubeconfig of {@link MINTER_USER}, passed to the exec plugin. */
  minterKubeconfig: string;
  /** Metadata-level audit log of pod requests; shows which webhooks ran and what they decided. */
  auditLogFile: string;
  apiserverLogFile: string;
  etcdLogFile: string;
  /**
   * The Workers' JWT issuer, trusted by the API server's JWT authenticator (`--authentication-config`): its URL,
   * the audience, and each function's signing key.
   */
  jwt: LocalJwtIssuerInfo;
  /**
   * The token the API server sends to every webhook (`Authorization: Bearer`), when started with
   * {@link StartClusterOptions.webhookCallerToken}; the functions accept it with
   * `CALLER_AUTH=bearer CALLER_AUTH_TOKENS=<token>`.
   */
  webhookCallerToken?: string;
}

/** A running cluster; call `stop()` when done (teardown also runs on exit and signals). */
export interface LocalCluster extends LocalClusterInfo {
  /** A TLS serving certificate signed by the cluster CA, e.g. for the functions' HTTPS server. */
  issueServingCertificate(hosts: string[]): Promise<CertificatePair>;
  /** Stops kube-apiserver then etcd (SIGTERM, then SIGKILL after 5 s) and removes `dir`. */
  stop(): Promise<void>;
  /**
   * Stops one server of the control plane (SIGTERM, then SIGKILL after 5 s) and leaves its ports,
   * data, keys and log in place, for fault tests; {@link LocalCluster.startServer} brings it back.
   */
  stopServer(name: ControlPlaneServer): Promise<void>;
  /**
   * Starts a server stopped by {@link LocalCluster.stopServer} again with the same command line (same
   * ports, data folder and keys), and waits until kube-apiserver answers `/readyz` (which checks etcd).
   */
  startServer(name: ControlPlaneServer): Promise<void>;
}

/** The servers of the local control plane, by the name their process carries. */
export type ControlPlaneServer = "etcd" | "kube-apiserver";

/** Options for {@link startCluster}. */
export interface StartClusterOptions {
  /** Prebuilt binaries; default: {@link ensureBinaries} of {@link StartClusterOptions.kubeVersion}. */
  binaries?: LocalBinaries;
  /** Kubernetes version to build when `binaries` is not given (`1.30`); default `KUBE_VERSION`, then the newest pinned. */
  kubeVersion?: string;
  /**
   * Appended to kube-apiserver's flags (later flags win), e.g. `--authentication-config=...`; a function gets the
   * cluster's CA and folder first, for flags naming files made from them (the local node's kubelet client certificate).
   */
  extraApiserverArgs?: string[] | ((ca: CertificateAuthority, dir: string) => Promise<string[]>);
  /** How long to wait for etcd and `/readyz`; default 120000 (start-up takes about 4 s on 2 cores). */
  readyTimeoutMs?: number;
  /**
   * Makes the API server authenticate to webhooks with this bearer token: an AdmissionConfiguration
   * from {@link writeWebhookCallerAuth} in the cluster's folder, passed with
   * `--admission-control-config-file` (see `createCallerToken()`). Default: no credential is sent.
   */
  webhookCallerToken?: string;
}

/** The admin endpoint of a cluster, for {@link kubeRequest}. */
export function adminEndpoint(cluster: LocalClusterInfo): KubeEndpoint {
  return { server: cluster.server, caPem: cluster.caPem, token: cluster.adminToken };
}

let certificateCount = 0;

/**
 * Issues a serving certificate signed by the CA of a cluster described by `cluster` (works from
 * a {@link LocalClusterInfo} received in another process, since the CA key is in `cluster.dir`).
 */
export function issueClusterServingCertificate(cluster: LocalClusterInfo, hosts: string[]): Promise<CertificatePair> {
  const ca = { certFile: cluster.caFile, keyFile: join(cluster.dir, "ca.key"), certPem: cluster.caPem };
  const baseName = `serving-${process.pid}-${++certificateCount}`;
  return issueServingCertificate(ca, join(cluster.dir, "certs"), baseName, hosts);
}

function token(): string {
  return randomBytes(24).toString("base64url");
}

/**
 * Starts etcd and kube-apiserver on free loopback ports in a fresh temporary folder, waits for
 * `/readyz` and the `default` namespace, and creates the `default` ServiceAccount there (no
 * controller-manager runs, so nothing else creates service accounts).
 *
 * The API server runs with RBAC (plus Node) authorization, mutating and validating admission
 * webhooks, service-account tokens signed by a key of ours, and a static token file holding the
 * admin (`system:masters`) and {@link MINTER_USER}, and a JWT authenticator trusting the local issuer of
 * the Workers' tokens (jwt-issuer-server.ts, served from this process until `stop()`).
 * @throws Error with the tail of both servers' logs when start-up fails; nothing is left behind.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<LocalCluster> {
  const binaries = options.binaries ?? (await ensureBinaries(options.kubeVersion));
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const dir = await mkdtemp(join(tmpdir(), "gmsa-cluster-"));
  const processes: ManagedProcess[] = [];
  const launches = new Map<ControlPlaneServer, { command: string; args: string[]; logFile: string }>();
  let jwtIssuer: LocalJwtIssuer | undefined;
  const stopAll = async (): Promise<void> => {
    // API server first: it would otherwise log etcd connection errors while shutting down.
    for (const server of [...processes].reverse()) await stopProcess(server);
    await jwtIssuer?.close();
  };
  const { target, teardown } = createTeardown(dir, stopAll);

  try {
    await mkdir(join(dir, "certs"));
    const ca = await createCertificateAuthority(dir, "gmsa-webhooks local CA");
    const serving = await issueServingCertificate(ca, dir, "apiserver", [
      "127.0.0.1",
      "localhost",
      KUBERNETES_SERVICE_IP,
    ]);
    const saKeys = await createServiceAccountKeys(dir);
    const adminToken = token();
    const minterToken = token();
    const tokenFile = join(dir, "tokens.csv");
    // Static token file format: token,user,uid,"group1,group2".
    await writeFile(
      tokenFile,
      `${adminToken},gmsa-local-admin,gmsa-local-admin,"system:masters"\n${minterToken},${MINTER_USER},${MINTER_USER}\n`,
      { mode: 0o600 },
    );
    const auditPolicyFile = join(dir, "audit-policy.json");
    await writeFile(auditPolicyFile, JSON.stringify(AUDIT_POLICY));

    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcdLogFile = join(dir, "etcd.log");
    const etcdArgs = etcdFlags({ dataDir: join(dir, "etcd"), clientUrl: etcdUrl, peerUrl });
    launches.set("etcd", { command: binaries.etcd, args: etcdArgs, logFile: etcdLogFile });
    const etcd = await startProcess("etcd", binaries.etcd, etcdArgs, etcdLogFile);
    processes.push(etcd);
    recordProcessGroup(target, etcd.pid);
    await waitFor("etcd /health", readyTimeoutMs, processes, async () => {
      const response = await fetch(`${etcdUrl}/health`);
      return response.ok && ((await response.json()) as { health?: string }).health === "true";
    });

    const server = `https://127.0.0.1:${apiPort}`;
    // Up before the API server, which fetches the discovery document at start (and then only every 10 s).
    jwtIssuer = await startJwtIssuer(dir, ca, server);
    const authenticationConfigFile = join(dir, "authentication-config.json");
    const authenticationConfig = {
      ...buildAuthenticationConfiguration(jwtIssuer, ca.certPem),
      // The same JWT authenticator under the version this server reads.
      apiVersion: authenticationConfigurationApiVersion(binaries.kubeVersion),
    };
    await writeFile(authenticationConfigFile, JSON.stringify(authenticationConfig, null, 2));
    const apiserverLogFile = join(dir, "kube-apiserver.log");
    const auditLogFile = join(dir, "audit.log");
    const apiserverFlagList = apiserverFlags({
      etcdUrl,
      port: apiPort,
      certDir: join(dir, "apiserver-certs"),
      servingCertFile: serving.certFile,
      servingKeyFile: serving.keyFile,
      caFile: ca.certFile,
      tokenFile,
      serviceAccountPublicKeyFile: saKeys.publicKeyFile,
      serviceAccountPrivateKeyFile: saKeys.privateKeyFile,
      auditPolicyFile,
      auditLogFile,
      authenticationConfigFile,
    });
    const callerAuthArgs =
      options.webhookCallerToken === undefined
        ? []
        : (await writeWebhookCallerAuth(dir, options.webhookCallerToken)).apiserverArgs;
    const extraArgs =
      typeof options.extraApiserverArgs === "function"
        ? await options.extraApiserverArgs(ca, dir)
        : (options.extraApiserverArgs ?? []);
    const apiserverArgs = [...apiserverFlagList, ...callerAuthArgs, ...extraArgs];
    launches.set("kube-apiserver", { command: binaries.apiserver, args: apiserverArgs, logFile: apiserverLogFile });
    const apiserver = await startProcess("kube-apiserver", binaries.apiserver, apiserverArgs, apiserverLogFile);
    processes.push(apiserver);
    recordProcessGroup(target, apiserver.pid);

    const admin: KubeEndpoint = { server, caPem: ca.certPem, token: adminToken };
    await waitFor("kube-apiserver /readyz", readyTimeoutMs, processes, async () => {
      return (await kubeRequest(admin, "/readyz", { timeoutMs: 5000 })).status === 200;
    });
    await waitFor("namespace default", readyTimeoutMs, processes, async () => {
      return (await kubeRequest(admin, "/api/v1/namespaces/default")).status === 200;
    });
    const created = await kubeRequest(admin, "/api/v1/namespaces/default/serviceaccounts", {
      method: "POST",
      body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } },
    });
    if (created.status !== 201 && created.status !== 409) {
      throw new Error(`cannot create ServiceAccount default/default: HTTP ${created.status}`);
    }

    const info: LocalClusterInfo = {
      server,
      kubeVersion: binaries.kubeVersion,
      caPem: ca.certPem,
      caFile: ca.certFile,
      dir,
      adminToken,
      adminKubeconfig: await writeKubeconfig({
        path: join(dir, "admin.kubeconfig"),
        server,
        caPem: ca.certPem,
        name: "gmsa-local-admin",
        user: { token: adminToken },
      }),
      minterKubeconfig: await writeKubeconfig({
        path: join(dir, "minter.kubeconfig"),
        server,
        caPem: ca.certPem,
        name: MINTER_USER,
        user: { token: minterToken },
      }),
      auditLogFile,
      apiserverLogFile,
      etcdLogFile,
      jwt: {
        issuer: jwtIssuer.issuer,
        audience: jwtIssuer.audience,
        keyFiles: jwtIssuer.keyFiles,
        jwksFile: jwtIssuer.jwksFile,
      },
      ...(options.webhookCallerToken === undefined ? {} : { webhookCallerToken: options.webhookCallerToken }),
    };
    const running = (name: ControlPlaneServer): number => processes.findIndex((p) => p.name === name && !p.hasExited());
    return {
      ...info,
      issueServingCertificate: (hosts) => issueClusterServingCertificate(info, hosts),
      stop: teardown,
      stopServer: async (name) => {
        const index = running(name);
        if (index >= 0) await stopProcess(processes[index]!);
      },
      startServer: async (name) => {
        if (running(name) >= 0) return;
        const { command, args, logFile } = launches.get(name)!;
        const restarted = await startProcess(name, command, args, logFile);
        processes[processes.findIndex((p) => p.name === name)] = restarted;
        recordProcessGroup(target, restarted.pid);
        await waitFor("kube-apiserver /readyz", readyTimeoutMs, processes, async () => {
          return (await kubeRequest(admin, "/readyz", { timeoutMs: 5000 })).status === 200;
        });
      },
    };
  } catch (error) {
    const tails = await Promise.all(
      processes.map(async (p) => `--- last lines of ${p.name} log ---\n${await tailFile(p.logFile)}`),
    );
    await teardown();
    throw new Error(`local cluster did not start: ${(error as Error).message}\n${tails.join("\n")}`, {
      cause: error,
    });
  }
}
