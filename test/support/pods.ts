/**
 * Pod builders for every tier: {@link buildPod}, and for the GMSA rules a pod with a main container "app" and an init
 * container "setup" with the GMSA setting on the pod, a container or an init container (every rule runs at each
 * place: docs/development.md, Tests).
 */
import type { Container, Pod, WindowsOptions } from "../../shared/admission/review.ts";

/** A credspec as `New-CredentialSpec` writes it. */
export const WEBAPP1_CREDSPEC = {
  CmsPlugins: ["ActiveDirectory"],
  DomainJoinConfig: {
    Sid: "S-1-5-21-2126449477-2524075714-3094792973",
    MachineAccountName: "WebApp1",
    Guid: "244818ae-87ac-4fcd-92ec-e79e5252348a",
    DnsTreeName: "contoso.com",
    DnsName: "contoso.com",
    NetBiosName: "CONTOSO",
  },
  ActiveDirectoryConfig: {
    GroupManagedServiceAccounts: [
      { Name: "WebApp1", Scope: "contoso.com" },
      { Name: "WebApp1", Scope: "CONTOSO" },
    ],
  },
};

export const WEBAPP2_CREDSPEC = {
  ...WEBAPP1_CREDSPEC,
  DomainJoinConfig: { ...WEBAPP1_CREDSPEC.DomainJoinConfig, MachineAccountName: "WebApp2" },
  ActiveDirectoryConfig: { GroupManagedServiceAccounts: [{ Name: "WebApp2", Scope: "contoso.com" }] },
};

/** What expand inlines for a credspec. */
export function inlined(credspec: unknown): string {
  return JSON.stringify(credspec);
}

export type PlaceKind = "pod" | "container" | "init container";

export interface PlaceCase {
  kind: PlaceKind;
  /** How denials name the place. */
  label: string;
}

/** The three places every rule is tried at. */
export const PLACES: readonly PlaceCase[] = [
  { kind: "pod", label: "pod" },
  { kind: "container", label: 'container "app"' },
  { kind: "init container", label: 'init container "setup"' },
];

export interface ContainerOptions {
  name: string;
  windowsOptions?: WindowsOptions;
  [field: string]: unknown;
}

export interface PodOptions {
  name?: string;
  /** "" leaves the namespace to the request (the e2e tests' API-server path). */
  namespace?: string;
  /** "" leaves it unset: the API server's "default". */
  serviceAccountName?: string;
  hostname?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** `{}` schedules the pod anywhere (the e2e cluster's Linux nodes). */
  nodeSelector?: Record<string, string>;
  /** The image of containers that name none. */
  image?: string;
  /** Pod-level `spec.securityContext.windowsOptions`. */
  windowsOptions?: WindowsOptions;
  containers?: ContainerOptions[];
  /** `[]` for none. */
  initContainers?: ContainerOptions[];
  ephemeralContainers?: ContainerOptions[];
  /** More spec fields, set last. */
  spec?: Record<string, unknown>;
}

/**
 * A pod for unit, tools and e2e tests alike; defaults: a Windows pod "web" in namespace "ns1" labelled app=web, service
 * account "sa1", container "app", init container "setup". test/e2e/support/pods.ts has the e2e defaults.
 */
export function buildPod(options: PodOptions = {}): Pod {
  const image = options.image ?? "mcr.microsoft.com/windows/servercore:ltsc2022";
  const build = (containers: ContainerOptions[]) => containers.map((c) => buildContainer(c, image));
  const spec: Record<string, unknown> = {};
  if (options.serviceAccountName !== "") spec["serviceAccountName"] = options.serviceAccountName ?? "sa1";
  if (options.hostname !== undefined) spec["hostname"] = options.hostname;
  const nodeSelector = options.nodeSelector ?? { "kubernetes.io/os": "windows" };
  if (Object.keys(nodeSelector).length > 0) spec["nodeSelector"] = nodeSelector;
  if (options.windowsOptions !== undefined) spec["securityContext"] = { windowsOptions: options.windowsOptions };
  spec["containers"] = build(options.containers ?? [{ name: "app" }]);
  const initContainers = options.initContainers ?? [{ name: "setup" }];
  if (initContainers.length > 0) spec["initContainers"] = build(initContainers);
  if (options.ephemeralContainers !== undefined) spec["ephemeralContainers"] = build(options.ephemeralContainers);
  const namespace = options.namespace ?? "ns1";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: options.name ?? "web",
      ...(namespace === "" ? {} : { namespace }),
      labels: options.labels ?? { app: "web" },
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    },
    spec: { ...spec, ...options.spec },
  };
}

function buildContainer({ name, windowsOptions, ...rest }: ContainerOptions, image: string): Container {
  return {
    name,
    image,
    ...rest,
    ...(windowsOptions === undefined ? {} : { securityContext: { windowsOptions } }),
  };
}

/** A pod whose `windowsOptions` at `place` are `windowsOptions`. */
export function podWithGmsaAt(place: PlaceKind, windowsOptions: WindowsOptions, options: PodOptions = {}): Pod {
  switch (place) {
    case "pod":
      return buildPod({ ...options, windowsOptions });
    case "container":
      return buildPod({ ...options, containers: [{ name: "app", windowsOptions }] });
    case "init container":
      return buildPod({ ...options, initContainers: [{ name: "setup", windowsOptions }] });
  }
}
