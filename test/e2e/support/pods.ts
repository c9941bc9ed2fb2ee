/**
 * Pods for the e2e tests (built by test/support's buildPod with {@link e2ePod}), created through the real API server with the admin credential, and what
 * the API server answers (the stored pod, or the Status of a refusal); and the functions registered as the webhooks
 * that review them.
 */
import type { V1Status } from "@kubernetes/client-node";
import { afterAll, beforeAll } from "vitest";
import {
  adminEndpoint,
  applyFunctionsWebhooks,
  applyWebhooks,
  deleteWebhooks,
  kubeRequest,
  kubeRequestOk,
  startFunctions,
  type FunctionsStack,
  type LocalClusterInfo,
  type StartFunctionsOptions,
} from "../../../infra/local/index.ts";
import type { Container, Pod, WindowsOptions } from "../../../shared/admission/review.ts";
import type { PodOptions } from "../../support/pods.ts";

export type { Container, Pod, PodOptions, WindowsOptions };

/** Namespace of the samples: `gmsa-app` may use webapp01 (infra/deploy/samples/rbac.yaml), `default` nothing. */
export const NAMESPACE = "default";
export const PODS = `/api/v1/namespaces/${NAMESPACE}/pods`;
const podsIn = (namespace = NAMESPACE) => `/api/v1/namespaces/${namespace}/pods`;
export const IMAGE = "mcr.microsoft.com/windows/nanoserver:ltsc2022";
/** Label on every pod a test file creates, so that `deletePods` finds them. */
export const E2E_LABEL = "gmsa-webhooks.local/e2e";

/** A `Status` the API server returns when admission refuses. */
export type Status = V1Status;

/** A container named `name` with optional windowsOptions. */
export function container(
  name: string,
  windowsOptions?: WindowsOptions,
  extra: Record<string, unknown> = {},
): Container {
  return { name, image: IMAGE, ...(windowsOptions ? { securityContext: { windowsOptions } } : {}), ...extra };
}

/**
 * What makes test/support's `buildPod` build an e2e pod: `name`, labelled `E2E_LABEL=<group>` for `deletePods`, in
 * the namespace of the request, under the namespace's default service account, scheduled anywhere, with container
 * "app" and no init container, on {@link IMAGE}. Spread it first: `buildPod({ ...e2ePod(group, name), ...options })`.
 */
export function e2ePod(group: string, name: string): PodOptions {
  return {
    name,
    namespace: "",
    serviceAccountName: "",
    labels: { [E2E_LABEL]: group },
    nodeSelector: {},
    image: IMAGE,
    initContainers: [],
  };
}

/**
 * Creates a pod as the admin, webhooks included (`dryRun: true`: `?dryRun=All`; `namespace` defaults to the e2e
 * one); never throws for HTTP statuses.
 */
export function createPod(cluster: LocalClusterInfo, pod: Pod, options: { dryRun?: boolean; namespace?: string } = {}) {
  const query = options.dryRun ? "?dryRun=All" : "";
  return kubeRequest<Pod & Status>(adminEndpoint(cluster), `${podsIn(options.namespace)}${query}`, {
    method: "POST",
    body: pod,
  });
}

/** Reads a stored pod. */
export function getPod(cluster: LocalClusterInfo, name: string) {
  return kubeRequest<Pod & Status>(adminEndpoint(cluster), `${PODS}/${name}`);
}

/**
 * A JSON merge patch of a pod, or a strategic merge patch of a subresource such as `ephemeralcontainers`
 * (`namespace` defaults to the e2e one).
 */
export function patchPod(
  cluster: LocalClusterInfo,
  name: string,
  body: unknown,
  { subresource, namespace }: { subresource?: string | undefined; namespace?: string } = {},
) {
  const path = `${podsIn(namespace)}/${name}${subresource === undefined ? "" : `/${subresource}`}`;
  const contentType =
    subresource === undefined ? "application/merge-patch+json" : "application/strategic-merge-patch+json";
  return kubeRequest<Pod & Status>(adminEndpoint(cluster), path, { method: "PATCH", contentType, body });
}

/** Deletes every pod labelled `E2E_LABEL=<group>` in `namespace` (pods never scheduled go at once). */
export async function deletePods(cluster: LocalClusterInfo, group: string, namespace?: string): Promise<void> {
  const selector = encodeURIComponent(`${E2E_LABEL}=${group}`);
  await kubeRequestOk(adminEndpoint(cluster), `${podsIn(namespace)}?labelSelector=${selector}`, { method: "DELETE" });
}

/** The `credspec` of a GMSACredentialSpec as stored in the cluster. */
export async function readCredSpec(cluster: LocalClusterInfo, name: string): Promise<unknown> {
  const object = await kubeRequestOk<{ credspec: unknown }>(
    adminEndpoint(cluster),
    `/apis/windows.k8s.io/v1/gmsacredentialspecs/${name}`,
  );
  return object.credspec;
}

/** The inlined contents, parsed (expand writes compact JSON; equality is of the JSON value). */
export function parsed(contents: string | undefined): unknown {
  return contents === undefined ? undefined : JSON.parse(contents);
}

/**
 * Starts the functions with `options` (Node, under the cluster's folder, unless they say otherwise) and registers them
 * as the cluster's webhooks, waiting until a review passes through them (`wait: false`: not, for functions that cannot
 * pass one).
 */
export async function startRegisteredFunctions(
  cluster: LocalClusterInfo,
  { wait = true, ...options }: Partial<StartFunctionsOptions> & { wait?: boolean } = {},
): Promise<FunctionsStack> {
  const stack = await startFunctions(cluster, { runtime: "node", dir: cluster.dir, ...options });
  if (wait) await applyFunctionsWebhooks(cluster, stack);
  else {
    const { expandBaseUrl: expandUrl, authorizeBaseUrl: authorizeUrl } = stack;
    await applyWebhooks(cluster, { expandUrl, authorizeUrl, caBundlePem: cluster.caPem });
  }
  return stack;
}

/**
 * {@link startRegisteredFunctions} for the enclosing describe block or file: before its tests; after them, the webhooks
 * and the pods of `group` (when given) are deleted and the functions stopped. @returns the running stack.
 */
export function useRegisteredFunctions(
  cluster: LocalClusterInfo,
  options: Parameters<typeof startRegisteredFunctions>[1] = {},
  group?: string,
): () => FunctionsStack {
  let stack: FunctionsStack | undefined;
  beforeAll(async () => {
    stack = await startRegisteredFunctions(cluster, options);
  }, 180_000);
  afterAll(async () => {
    await deleteWebhooks(cluster);
    if (group !== undefined) await deletePods(cluster, group);
    await stack?.stop();
  });
  return () => stack!;
}

/** Reviews each function has answered so far (its own counters). */
export async function reviewCounts(stack: FunctionsStack) {
  const [expand, authorize] = await Promise.all([stack.metrics("expand"), stack.metrics("authorize")]);
  return { expand: expand["expand_reviews_total"] ?? 0, authorize: authorize["authorize_reviews_total"] ?? 0 };
}
