/** The pod types: the output of the zod schema that checks a review's pod, so the type and the check cannot drift. */
import type * as z from "zod/mini";
import type { ContainerSchema, PodSchema, WindowsOptionsSchema } from "../admission/review.ts";

export type Pod = z.output<typeof PodSchema>;
export type Container = z.output<typeof ContainerSchema>;
export type WindowsOptions = z.output<typeof WindowsOptionsSchema>;
