import type { Pod, WindowsOptions } from "./pod.ts";

/** The three lists of containers, in the order denials name them, and how a denial names a container of each. */
const CONTAINER_LABELS = { containers: "container", initContainers: "init container", ephemeralContainers: "ephemeral container" } as const;
type ContainerList = keyof typeof CONTAINER_LABELS;

/**
 * One place that can hold GMSA settings: the pod's `securityContext.windowsOptions` or a container's, with its label
 * for denials (`pod`, `container "web"`) and the JSON path of its `windowsOptions`. The single traversal every rule
 * uses (windows-gmsa's `iterateOverWindowsSecurityOptions`, but covering init and ephemeral containers too).
 */
export interface OptionsPlace {
  scope: "pod" | ContainerList;
  /** Absent for the pod. */
  containerName?: string;
  label: string;
  path: string[];
  options: WindowsOptions | undefined;
}

/** Every place of the pod: the pod first, then containers, init containers and ephemeral containers in order. */
export function listOptionsPlaces(pod: Pod): OptionsPlace[] {
  const places: OptionsPlace[] = [
    { scope: "pod", label: "pod", path: ["spec", "securityContext", "windowsOptions"], options: pod.spec?.securityContext?.windowsOptions },
  ];
  for (const list of Object.keys(CONTAINER_LABELS) as ContainerList[]) {
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

/** For UPDATEs of `pods/ephemeralcontainers`: true for the ephemeral containers the old pod did not have. */
export function isNewEphemeralContainer(oldPod: Pod): (place: OptionsPlace) => boolean {
  const existing = new Set((oldPod.spec?.ephemeralContainers ?? []).map((c) => c.name));
  return (place) => place.scope === "ephemeralContainers" && !existing.has(place.containerName ?? "");
}
