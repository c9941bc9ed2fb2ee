/**
 * Runs the `helm` built by infra/build/tools/go-build.ts (the e2e global setup provides its path as `inject("helm")`)
 * against the chart in infra/deploy/helm/gmsa-webhooks, through infra/build/tools/helm-runner.ts (Helm's folders of its own).
 */
import { expect } from "vitest";
import { CHART_DIR } from "../../../infra/build/helm/chart-dir.ts";
import { kubeRequestOk, type FunctionsStack, type KubeEndpoint, type KubeObject } from "../../../infra/local/index.ts";
import { FUNCTIONS_NAMESPACE, functionServiceAccount } from "../../../infra/local/function-tokens.ts";
import { POD_CIDR } from "../../../infra/local/node-config.ts";
import {
  createHelmRunner as createBaseHelmRunner,
  type HelmRunner as BaseHelmRunner,
} from "../../../infra/build/tools/helm-runner.ts";
import { parseObjects } from "./manifests.ts";

/** The project's {@link BaseHelmRunner} plus `helm template` of the chart. */
export interface HelmRunner extends BaseHelmRunner {
  /** `helm template <release> <chart> -n <namespace> -f <values>`: the rendered objects; throws with stderr. */
  template(release: string, namespace: string, values: unknown, extraArgs?: string[]): Promise<KubeObject[]>;
  /** `helm <args>` against the cluster of `kubeconfig` (given at creation), expected to exit 0; @returns its stdout. */
  ok(args: string[], values?: unknown): Promise<string>;
}

/** Creates a {@link HelmRunner} for the binary at `helmPath`, for the cluster of `kubeconfig` when given. */
export async function createHelmRunner(helmPath: string, kubeconfig?: string): Promise<HelmRunner> {
  const base = await createBaseHelmRunner(helmPath);
  return {
    ...base,
    async ok(args, values) {
      const result = await base.run(args, {
        ...(values === undefined ? {} : { values }),
        ...(kubeconfig ? { kubeconfig } : {}),
      });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    },
    async template(release, namespace, values, extraArgs = []) {
      const result = await base.run(["template", release, CHART_DIR, "-n", namespace, ...extraArgs], { values });
      if (result.code !== 0) throw new Error(`helm template failed (exit ${result.code}): ${result.stderr}`);
      return parseObjects(result.stdout);
    },
  };
}

/**
 * Values for rendering an in-cluster install (helm template): bearer caller auth with the given token for both
 * functions, certificates generated at install, an image name that no test pulls, and the NetworkPolicy's control
 * plane: the local node's pod network, where the API server's connections to pods come from (infra/local/node-config.ts).
 * Installs on the real node use `localNodeValues` (infra/local/in-cluster.ts).
 */
export function inClusterTestValues(callerToken: string): Record<string, unknown> {
  return {
    image: { repository: "registry.invalid/gmsa-webhooks" },
    callerAuth: { mode: "bearer", expand: callerToken, authorize: callerToken },
    networkPolicy: { controlPlaneCIDRs: [POD_CIDR] },
  };
}

/**
 * Values for an external-mode test install: both webhooks registered by URL at the functions `stack` serves on
 * loopback, trusted through the local cluster's CA, bearer caller auth, each function's own service account bound.
 * `crd` is the chart's default: a CRD already in the cluster that the release does not own is left alone.
 */
export function externalTestValues(caPem: string, stack: FunctionsStack): Record<string, unknown> {
  const subjects = (fn: "expand" | "authorize") => [
    { kind: "ServiceAccount", name: functionServiceAccount(fn), namespace: FUNCTIONS_NAMESPACE },
  ];
  return {
    mode: "external",
    callerAuth: { mode: "bearer" },
    external: {
      caBundle: Buffer.from(caPem).toString("base64"),
      expand: { url: stack.expandBaseUrl, subjects: subjects("expand") },
      authorize: { url: stack.authorizeBaseUrl, subjects: subjects("authorize") },
    },
  };
}

/**
 * Merge-patches Helm's ownership marks onto the object at `path`: managed by Helm, of `release` in `namespace` (Helm
 * installs over an existing object only when they name the release). `null` removes them.
 */
export function setHelmOwner(admin: KubeEndpoint, path: string, release: string | null, namespace: string | null) {
  const metadata = {
    labels: { "app.kubernetes.io/managed-by": release && "Helm" },
    annotations: { "meta.helm.sh/release-name": release, "meta.helm.sh/release-namespace": namespace },
  };
  return kubeRequestOk(admin, path, {
    method: "PATCH",
    contentType: "application/merge-patch+json",
    body: { metadata },
  });
}
