/**
 * The one pod type: the output of the zod schema that checks a review's pod (shared/admission/pod-schema.ts), so the
 * type and the check cannot drift. Field names are Kubernetes' own; every other field passes through untouched.
 */
import type * as z from "zod/mini";
import type { ContainerSchema, PodSchema, WindowsOptionsSchema } from "../admission/pod-schema.ts";

export type Pod = z.output<typeof PodSchema>;
export type Container = z.output<typeof ContainerSchema>;
export type WindowsOptions = z.output<typeof WindowsOptionsSchema>;
