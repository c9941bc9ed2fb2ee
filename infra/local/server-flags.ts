/**
 * Command lines of the local control plane, in one place so what runs is easy to read.
 */

/** Where etcd keeps data and listens. */
export interface EtcdFlagsOptions {
  dataDir: string;
  clientUrl: string;
  peerUrl: string;
}

/** Flags for a single-member etcd on loopback. */
export function etcdFlags({ dataDir, clientUrl, peerUrl }: EtcdFlagsOptions): string[] {
  return [
    "--name=local",
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=local=${peerUrl}`,
    // A throwaway cluster: durability buys nothing and fsync dominates on slow disks.
    "--unsafe-no-fsync",
    "--log-level=warn",
  ];
}

/**
 * The ClusterIP of the `kubernetes` Service: the first address of `--service-cluster-ip-range`, and what the kubelet
 * puts in a pod's `KUBERNETES_SERVICE_HOST`. The API server's certificate names it, so a pod of the local node
 * (node.ts, which routes it to the API server) verifies the API server as it would in a cluster.
 */
export const KUBERNETES_SERVICE_IP = "10.96.0.1";

/** Files and ports kube-apiserver needs. */
export interface ApiserverFlagsOptions {
  etcdUrl: string;
  port: number;
  /** Scratch folder for anything the API server writes itself. */
  certDir: string;
  servingCertFile: string;
  servingKeyFile: string;
  caFile: string;
  tokenFile: string;
  serviceAccountPublicKeyFile: string;
  serviceAccountPrivateKeyFile: string;
  auditPolicyFile: string;
  auditLogFile: string;
  /** Structured authentication configuration (the Workers' JWT issuer); cannot be combined with `--oidc-*`. */
  authenticationConfigFile: string;
}

/** Audit pod requests at Metadata level: the log then names the webhooks that ran. */
export const AUDIT_POLICY = {
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    { level: "Metadata", resources: [{ group: "", resources: ["pods", "pods/ephemeralcontainers"] }] },
    { level: "None" },
  ],
};

/** Flags for kube-apiserver on 127.0.0.1 with RBAC, admission webhooks and our token signer. */
export function apiserverFlags(o: ApiserverFlagsOptions): string[] {
  return [
    `--etcd-servers=${o.etcdUrl}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${o.port}`,
    `--cert-dir=${o.certDir}`,
    `--tls-cert-file=${o.servingCertFile}`,
    `--tls-private-key-file=${o.servingKeyFile}`,
    `--client-ca-file=${o.caFile}`,
    `--token-auth-file=${o.tokenFile}`,
    `--authentication-config=${o.authenticationConfigFile}`,
    "--authorization-mode=Node,RBAC",
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${o.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${o.serviceAccountPrivateKeyFile}`,
    "--service-cluster-ip-range=10.96.0.0/16",
    // The `kubernetes` Service's Endpoints may not be loopback: without this the API server
    // logs a failed sync every 10 s. The local node routes the Service's ClusterIP itself (node-host.ts).
    "--endpoint-reconciler-type=none",
    // Webhooks registered by service reference are called at the Service's EndpointSlice addresses, not at its
    // ClusterIP: no kube-proxy runs here; the local node's endpoint slices name its pods' addresses.
    "--enable-aggregator-routing=true",
    // Defaults already include these; naming them keeps the tests' premise visible.
    "--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook",
    // HostProcess pods (GMSA with privileged containers) need privileged allowed.
    "--allow-privileged=true",
    `--audit-policy-file=${o.auditPolicyFile}`,
    `--audit-log-path=${o.auditLogFile}`,
    "--profiling=false",
  ];
}
