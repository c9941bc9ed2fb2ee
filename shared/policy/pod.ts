/**
 * The parts of a Pod the GMSA rules read, as the API server sends them. Field names are Kubernetes' own
 * (core/v1 PodSpec, SecurityContext, WindowsSecurityContextOptions). Everything else passes through untouched.
 */

export interface WindowsOptions {
  gmsaCredentialSpecName?: string;
  gmsaCredentialSpec?: string;
  runAsUserName?: string;
  hostProcess?: boolean;
  [field: string]: unknown;
}

export interface SecurityContext {
  windowsOptions?: WindowsOptions;
  [field: string]: unknown;
}

export interface Container {
  name: string;
  securityContext?: SecurityContext;
  [field: string]: unknown;
}

export interface PodSpec {
  serviceAccountName?: string;
  hostname?: string;
  securityContext?: SecurityContext;
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  [field: string]: unknown;
}

export interface PodMetadata {
  name?: string;
  generateName?: string;
  namespace?: string;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: PodMetadata;
  spec?: PodSpec;
  [field: string]: unknown;
}

/** The three lists of containers, in the order denials name them. */
export const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;
export type ContainerList = (typeof CONTAINER_LISTS)[number];

/** How a denial names a container of each list. */
export const CONTAINER_LABELS: Record<ContainerList, string> = {
  containers: "container",
  initContainers: "init container",
  ephemeralContainers: "ephemeral container",
};
