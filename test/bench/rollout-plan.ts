/**
 * Section H's rollout: namespace n's ten service accounts may use credspecs 2n and 2n + 1, so 1,000 pods name 200
 * pairs five times each; half-way through the last phase one credspec is edited and one grant revoked (50 pods each).
 */
import type { KubeObject } from "../../infra/local/index.ts";
import { namespace as namespaceObject, serviceAccount as serviceAccountObject } from "../e2e/support/core-objects.ts";
import { binding, sa, useCredSpecs } from "../support/rbac.ts";
import { benchCredSpec, credSpecObject } from "./bench-pods.ts";

export const ROLLOUT_NAMESPACES = 10;
export const ROLLOUT_SERVICE_ACCOUNTS_PER_NAMESPACE = 10;
export const ROLLOUT_CREDSPECS = 2 * ROLLOUT_NAMESPACES;
export const ROLLOUT_PODS = 1000;
export const ROLLOUT_CONCURRENCY = 50;
/** The credspec whose contents change half-way through the last phase. */
export const EDITED_CREDSPEC = 3;
/** The credspec whose grant to namespace {@link REVOKED_NAMESPACE} is revoked half-way through the last phase. */
export const REVOKED_CREDSPEC = 0;
export const REVOKED_NAMESPACE = 0;

export function rolloutNamespace(n: number): string {
  return `gmsa-rollout-${n}`;
}

export function rolloutServiceAccount(k: number): string {
  return `app-${k}`;
}

export function rolloutCredSpecName(c: number): string {
  return `gmsa-rollout-${c}`;
}

export interface RolloutPodRef {
  namespace: number;
  serviceAccount: number;
  credspec: number;
}

/** The `i`-th pod (0 <= i < {@link ROLLOUT_PODS}): namespaces cycle fastest, then service accounts, then the credspec. */
export function rolloutPodRef(i: number): RolloutPodRef {
  const namespace = i % ROLLOUT_NAMESPACES;
  const serviceAccount = Math.floor(i / ROLLOUT_NAMESPACES) % ROLLOUT_SERVICE_ACCOUNTS_PER_NAMESPACE;
  const credspec = 2 * namespace + (Math.floor(i / (ROLLOUT_NAMESPACES * ROLLOUT_SERVICE_ACCOUNTS_PER_NAMESPACE)) % 2);
  return { namespace, serviceAccount, credspec };
}

/** The contents of credspec `c`; `edited` gives the contents after the change (another domain GUID). */
export function rolloutCredSpec(c: number, edited = false): Record<string, unknown> {
  const contents = benchCredSpec(100 + c);
  if (!edited) return contents;
  const domain = contents["DomainJoinConfig"] as Record<string, unknown>;
  return { ...contents, DomainJoinConfig: { ...domain, Guid: "5f0c3b9e-2d7a-4e61-8b43-a1c9d2e7f604" } };
}

export function rolloutCredSpecObject(c: number, edited = false): KubeObject {
  return credSpecObject(rolloutCredSpecName(c), rolloutCredSpec(c, edited));
}

/** The RoleBinding that lets namespace `floor(c / 2)`'s service accounts use credspec `c`. */
export function rolloutGrant(c: number): KubeObject {
  const namespace = rolloutNamespace(Math.floor(c / 2));
  const name = `use-${rolloutCredSpecName(c)}`;
  const accounts = Array.from({ length: ROLLOUT_SERVICE_ACCOUNTS_PER_NAMESPACE }, (_, k) =>
    sa(rolloutServiceAccount(k), namespace),
  );
  return binding(name, { kind: "ClusterRole", name }, accounts, namespace);
}

/** Namespaces, service accounts, credspecs and the grants, in the order they can be applied. */
export function rolloutObjects(): KubeObject[] {
  const objects: KubeObject[] = [];
  for (let n = 0; n < ROLLOUT_NAMESPACES; n++) {
    objects.push(namespaceObject(rolloutNamespace(n)));
    for (let k = 0; k < ROLLOUT_SERVICE_ACCOUNTS_PER_NAMESPACE; k++)
      objects.push(serviceAccountObject(rolloutServiceAccount(k), rolloutNamespace(n)));
  }
  for (let c = 0; c < ROLLOUT_CREDSPECS; c++) {
    objects.push(rolloutCredSpecObject(c));
    objects.push(useCredSpecs(`use-${rolloutCredSpecName(c)}`, [rolloutCredSpecName(c)]));
    objects.push(rolloutGrant(c));
  }
  return objects;
}

/** The pod sent for `ref`, labelled for one webhook pair (`labels`); the credspec named at pod level. */
export function rolloutPod(ref: RolloutPodRef, index: number, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `rollout-${index}`,
      namespace: rolloutNamespace(ref.namespace),
      labels: { app: "rollout", ...labels },
    },
    spec: {
      serviceAccountName: rolloutServiceAccount(ref.serviceAccount),
      securityContext: { windowsOptions: { gmsaCredentialSpecName: rolloutCredSpecName(ref.credspec) } },
      nodeSelector: { "kubernetes.io/os": "windows" },
      containers: [{ name: "app", image: "mcr.microsoft.com/windows/servercore:ltsc2022" }],
    },
  };
}

/** Whether the change of the last phase touches the pod: its grant revoked, or its credspec edited. */
export function changeOf(ref: RolloutPodRef): "revoked" | "edited" | undefined {
  if (ref.namespace === REVOKED_NAMESPACE && ref.credspec === REVOKED_CREDSPEC) return "revoked";
  if (ref.credspec === EDITED_CREDSPEC) return "edited";
  return undefined;
}
