import type { Pod, WindowsOptions } from "./pod.ts";

/** The three lists of containers, in the order denials name them. */
const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

/** How a denial names a container of each list. */
const CONTAINER_LABELS: Record<(typeof CONTAINER_LISTS)[number], string> = {
  containers: "container",
  initContainers: "init container",
  ephemeralContainers: "ephemeral container",
};

/**
 * One place that can hold GMSA settings: the pod's `securityContext.windowsOptions` or a container's.
 * This is the single traversal every rule uses (windows-gmsa's `iterateOverWindowsSecurityOptions`, but
 * covering init and ephemeral containers from the start).
 */
export interface OptionsPlace {
  /** "pod", or the list the container is in. */
  scope: "pod" | (typeof CONTAINER_LISTS)[number];
  /** Container name; absent for the pod. */
  containerName?: string;
  /** Human label for denials: `pod`, `container "web"`, `init container "setup"`. */
  label: string;
  /** JSON path segments of the `windowsOptions` object, e.g. ["spec","containers","0","securityContext","windowsOptions"]. */
  path: string[];
  /** The current windowsOptions (possibly absent). */
  options: WindowsOptions | undefined;
}

/** Every place of the pod: the pod first, then containers, init containers and ephemeral containers in order. */
export function listOptionsPlaces(pod: Pod): OptionsPlace[] {
  const places: OptionsPlace[] = [
    { scope: "pod", label: "pod", path: ["spec", "securityContext", "windowsOptions"], options: pod.spec?.securityContext?.windowsOptions },
  ];
  for (const list of CONTAINER_LISTS) {
    (pod.spec?.[list] ?? []).forEach((container, index) => {
      places.push({
        scope: list,
        containerName: container.name,
        label: `${CONTAINER_LABELS[list]} "${container.name}"`,
        path: ["spec", list, String(index), "securityContext", "windowsOptions"],
        options: container.securityContext?.windowsOptions,
      });
    });
  }
  return places;
}

/** True when a place names a credspec or carries contents. */
export function hasGmsaSettings(options: WindowsOptions | undefined): boolean {
  return options?.gmsaCredentialSpecName !== undefined || options?.gmsaCredentialSpec !== undefined;
}

/**
 * For UPDATEs of the `pods/ephemeralcontainers` subresource: true for the ephemeral containers that the
 * old pod did not have (they are judged like a create; existing ones cannot change).
 */
export function isNewEphemeralContainer(oldPod: Pod): (place: OptionsPlace) => boolean {
  const existing = new Set((oldPod.spec?.ephemeralContainers ?? []).map((c) => c.name));
  return (place) => place.scope === "ephemeralContainers" && !existing.has(place.containerName ?? "");
}
