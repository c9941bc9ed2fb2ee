/**
 * The one pod type: the output of the zod schema that checks a review's pod (shared/admission/pod-schema.ts), so the
 * type and the check cannot drift. Field names are Kubernetes' own; every other field passes through untouched.
 */
import type * as z from "zod/mini";
import type { ContainerSchema, PodSchema, WindowsOptionsSchema } from "../admission/pod-schema.ts";

export type Pod = z.output<typeof PodSchema>;
export type Container = z.output<typeof ContainerSchema>;
export type WindowsOptions = z.output<typeof WindowsOptionsSchema>;

/** The three lists of containers, in the order denials name them. */
export const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;
export type ContainerList = (typeof CONTAINER_LISTS)[number];

/** How a denial names a container of each list. */
export const CONTAINER_LABELS: Record<ContainerList, string> = {
  containers: "container",
  initContainers: "init container",
  ephemeralContainers: "ephemeral container",
};
