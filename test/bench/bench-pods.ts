/**
 * The bench's pods: 1 container naming gmsa-bench-0, or 10 naming gmsa-bench-1 to -5 twice each, so "one read per
 * distinct credspec" shows and the two sizes never share a cache entry.
 */
import type { KubeObject } from "../../infra/local/index.ts";
import type { Container, Pod } from "../../shared/admission/review.ts";
import { buildReview } from "../support/reviews.ts";

export const BENCH_NAMESPACE = "default";
export const BENCH_SERVICE_ACCOUNT = "gmsa-app";
/** Distinct credspecs named by the 10-container pod (the 1-container pod names one more). */
export const MULTI_CREDSPEC_COUNT = 5;
export const CONTAINER_COUNTS = [1, 10] as const;
export type ContainerCount = (typeof CONTAINER_COUNTS)[number];

export function benchCredSpecName(i: number): string {
  return `gmsa-bench-${i}`;
}

/** The `credspec` of a benchmark GMSACredentialSpec, shaped like New-CredentialSpec's output. */
export function benchCredSpec(i: number): Record<string, unknown> {
  const account = `benchapp${i}`;
  return {
    ActiveDirectoryConfig: {
      GroupManagedServiceAccounts: [
        { Name: account, Scope: "contoso.com" },
        { Name: account, Scope: "CONTOSO" },
      ],
    },
    CmsPlugins: ["ActiveDirectory"],
    DomainJoinConfig: {
      DnsName: "contoso.com",
      DnsTreeName: "contoso.com",
      Guid: "244818ae-87ac-4fcd-92ec-e79e5252348a",
      MachineAccountName: account,
      NetBiosName: "CONTOSO",
      Sid: "S-1-5-21-2126449477-2524075714-3094792973",
    },
  };
}

export function benchCredSpecNames(): string[] {
  return Array.from({ length: 1 + MULTI_CREDSPEC_COUNT }, (_, i) => benchCredSpecName(i));
}

function credSpecOfContainer(containers: number, i: number): string {
  return benchCredSpecName(containers === 1 ? 0 : 1 + (i % MULTI_CREDSPEC_COUNT));
}

export function distinctCredSpecs(containers: number): number {
  return containers === 1 ? 1 : Math.min(containers, MULTI_CREDSPEC_COUNT);
}

/** A GMSA pod of `containers` containers; `contents` (name -> JSON text) inlines contents as expand would. */
export function buildBenchPod(containers: number, contents?: ReadonlyMap<string, string>): Pod {
  const list: Container[] = Array.from({ length: containers }, (_, i) => {
    const name = credSpecOfContainer(containers, i);
    const text = contents?.get(name);
    return {
      name: `app-${i}`,
      image: "mcr.microsoft.com/windows/servercore:ltsc2022",
      ports: [{ containerPort: 8080 + i, protocol: "TCP" }],
      resources: { requests: { cpu: "100m", memory: "128Mi" } },
      securityContext: {
        windowsOptions: { gmsaCredentialSpecName: name, ...(text === undefined ? {} : { gmsaCredentialSpec: text }) },
      },
    };
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `bench-${containers}`, namespace: BENCH_NAMESPACE, labels: { app: "bench" } },
    spec: {
      serviceAccountName: BENCH_SERVICE_ACCOUNT,
      nodeSelector: { "kubernetes.io/os": "windows" },
      containers: list,
    },
  };
}

/** The contents expand inlines for each benchmark credspec (JSON.stringify of what the API server returns). */
export function inlinedContents(credspecs: ReadonlyMap<string, unknown>): Map<string, string> {
  return new Map([...credspecs].map(([name, value]) => [name, JSON.stringify(value)]));
}

/** The request body of a CREATE review of `pod` in its namespace, as the API server sends it. */
export function reviewBody(pod: Pod, uid = "0f3c5a2e-6b1d-4c8e-9a7f-2d4b6e8a0c1f"): string {
  return JSON.stringify(buildReview(pod, { uid }));
}

/** The GMSACredentialSpec object `name` holding `credspec`. */
export function credSpecObject(name: string, credspec: unknown): KubeObject {
  return { apiVersion: "windows.k8s.io/v1", kind: "GMSACredentialSpec", metadata: { name }, credspec };
}
