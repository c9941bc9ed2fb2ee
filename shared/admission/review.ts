import * as z from "zod/mini";
import "../zod-english.ts";
import type { Pod } from "../policy/pod.ts";
import { PodSchema } from "./pod-schema.ts";

/** AdmissionReview versions we accept and answer in (the reply uses the request's version). */
export const ADMISSION_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;
export type AdmissionVersion = (typeof ADMISSION_VERSIONS)[number];

const GroupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string() });

const AdmissionRequestSchema = z.looseObject({
  uid: z.string().check(z.minLength(1), z.maxLength(256)),
  kind: GroupVersionKind,
  subResource: z.optional(z.string()),
  name: z.optional(z.string()),
  namespace: z.optional(z.string()),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  object: z.optional(z.unknown()),
  oldObject: z.optional(z.unknown()),
  dryRun: z.optional(z.boolean()),
  /** Who sent the request, as the API server authenticated them (REVIEW_REQUESTING_USER reviews their `use`). */
  userInfo: z.optional(
    z.looseObject({
      username: z.optional(z.string()),
      uid: z.optional(z.string()),
      groups: z.optional(z.array(z.string())),
      extra: z.optional(z.record(z.string(), z.array(z.string()))),
    }),
  ),
});

/** The envelope of an AdmissionReview. */
export const AdmissionReviewSchema = z.looseObject({
  apiVersion: z.enum(ADMISSION_VERSIONS),
  kind: z.literal("AdmissionReview"),
  request: AdmissionRequestSchema,
});

export type AdmissionRequest = z.infer<typeof AdmissionRequestSchema>;
export interface AdmissionReviewRequest {
  apiVersion: AdmissionVersion;
  request: AdmissionRequest;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Checks the envelope of a decoded AdmissionReview; `problem` says which field was wrong. */
export function parseAdmissionReview(body: unknown): ParseResult<AdmissionReviewRequest> {
  const result = AdmissionReviewSchema.safeParse(body);
  if (!result.success) return { ok: false, problem: describeIssue(result.error) };
  return { ok: true, value: { apiVersion: result.data.apiVersion, request: result.data.request } };
}

/** Checks that `object` is a pod whose GMSA fields have the right types; `field` names where it was wrong. */
export function parsePod(object: unknown, field: "object" | "oldObject"): ParseResult<Pod> {
  const result = PodSchema.safeParse(object);
  if (!result.success) return { ok: false, problem: `request.${field}: ${describeIssue(result.error)}` };
  return { ok: true, value: result.data };
}

function describeIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
  return `${path === "" ? "(root)" : path}: ${issue.message}`.slice(0, 300);
}
