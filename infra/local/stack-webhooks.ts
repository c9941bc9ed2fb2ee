/**
 * Registers a running functions stack with the API server (infra/deploy/webhooks/ by URL) and waits until
 * the API server really calls both functions.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { applyWebhooks, loadManifest } from "./apply.ts";
import { adminEndpoint, type LocalClusterInfo } from "./cluster.ts";
import { kubeRequest } from "./kube-request.ts";

/** The part of a stack these helpers need (a {@link FunctionsStack} will do). */
export interface WebhookTargets {
  expandBaseUrl: string;
  authorizeBaseUrl: string;
  metrics(fn: "expand" | "authorize"): Promise<Record<string, number>>;
}

/** Options for {@link waitForFunctionsWebhooks}. */
export interface WaitForWebhooksOptions {
  /** Default 30000 (the API server's informer usually needs about a second). */
  timeoutMs?: number;
}

/** A pod with a GMSA credspec name, as the API server returned it. */
interface ProbePod {
  metadata?: { name?: string };
  spec?: { securityContext?: { windowsOptions?: { gmsaCredentialSpec?: string } } };
  message?: string;
}

/**
 * Polls with server-side dry-run creates of infra/deploy/samples/pod.yaml (under a generated name, nothing
 * stored) until the returned pod has its credspec inlined (expand ran) and authorize's
 * `authorize_reviews_total` has grown (authorize ran too): each configuration reaches the admission
 * plugins through its own informer. Needs applyBaseInfra (the sample credspec and RBAC).
 * @throws Error with the last answer when that does not happen within the timeout.
 */
export async function waitForFunctionsWebhooks(
  cluster: LocalClusterInfo,
  stack: WebhookTargets,
  options: WaitForWebhooksOptions = {},
): Promise<void> {
  await waitUntilWebhooksCalled(cluster, {
    ...options,
    authorizeReviews: async () => (await stack.metrics("authorize"))["authorize_reviews_total"] ?? 0,
  });
}

/** Options for {@link waitUntilWebhooksCalled}. */
export interface WaitUntilCalledOptions extends WaitForWebhooksOptions {
  /** Labels on the probe pod, for configurations that select pods by label. */
  labels?: Record<string, string>;
  /** authorize's review count, where it can be read: then also waits until it grows. */
  authorizeReviews?: () => Promise<number>;
}

/** {@link waitForFunctionsWebhooks} for any webhook pair: expand seen in the answer, authorize where it can be counted. */
export async function waitUntilWebhooksCalled(
  cluster: LocalClusterInfo,
  options: WaitUntilCalledOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const [pod] = await loadManifest("samples/pod.yaml");
  if (pod === undefined) throw new Error("infra/deploy/samples/pod.yaml holds no pod");
  const namespace = pod.metadata.namespace ?? "default";
  const labels = { ...(pod.metadata["labels"] as Record<string, string> | undefined), ...options.labels };
  const probe = { ...pod, metadata: { generateName: "gmsa-webhooks-probe-", namespace, labels } };
  const { authorizeReviews } = options;
  const before = await authorizeReviews?.();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await kubeRequest<ProbePod>(
      adminEndpoint(cluster),
      `/api/v1/namespaces/${namespace}/pods?dryRun=All`,
      {
        method: "POST",
        body: probe,
      },
    );
    const expanded = response.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec !== undefined;
    if (response.status === 201 && expanded && (before === undefined || (await authorizeReviews!()) > before)) return;
    const last = `HTTP ${response.status}${expanded ? ", expanded" : ""}${response.body.message ? `: ${response.body.message}` : ""}`;
    if (Date.now() > deadline) {
      throw new Error(
        `the API server did not call both functions within ${timeoutMs} ms (last dry-run create: ${last})`,
      );
    }
    await sleep(200);
  }
}

/**
 * Applies infra/deploy/webhooks/ pointing at the stack (caBundle: the cluster CA, which signed the stack's
 * certificate), then {@link waitForFunctionsWebhooks}.
 */
export async function applyFunctionsWebhooks(
  cluster: LocalClusterInfo,
  stack: WebhookTargets,
  options: WaitForWebhooksOptions = {},
): Promise<void> {
  await applyWebhooks(cluster, {
    expandUrl: stack.expandBaseUrl,
    authorizeUrl: stack.authorizeBaseUrl,
    caBundlePem: cluster.caPem,
  });
  await waitForFunctionsWebhooks(cluster, stack, options);
}
