import * as z from "zod/mini";
import "../zod-english.ts";
import type { Pod } from "../policy/pod.ts";
import { isPlainAdmissionReview, isPlainPod } from "./review-shape.ts";

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

/** The envelope of an AdmissionReview; review-shape.ts accepts the common case without it (its test holds them equal). */
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

// Decoded JSON has no undefined values: exactOptional keeps the parsed pod assignable to Pod's optional fields.
const WindowsOptionsSchema = z.looseObject({
  gmsaCredentialSpecName: z.exactOptional(z.string()),
  gmsaCredentialSpec: z.exactOptional(z.string()),
  runAsUserName: z.exactOptional(z.string()),
  hostProcess: z.exactOptional(z.boolean()),
});
const SecurityContextSchema = z.looseObject({ windowsOptions: z.exactOptional(WindowsOptionsSchema) });
const ContainerSchema = z.looseObject({ name: z.string(), securityContext: z.exactOptional(SecurityContextSchema) });

/**
 * The pod fields the GMSA rules read, type-checked; everything else passes through unchanged. review-shape.ts accepts
 * the common case without it (its test holds them equal).
 */
export const PodSchema = z.looseObject({
  metadata: z.exactOptional(
    z.looseObject({
      name: z.exactOptional(z.string()),
      generateName: z.exactOptional(z.string()),
      namespace: z.exactOptional(z.string()),
      annotations: z.exactOptional(z.record(z.string(), z.string())),
    }),
  ),
  spec: z.exactOptional(
    z.looseObject({
      serviceAccountName: z.exactOptional(z.string()),
      hostname: z.exactOptional(z.string()),
      securityContext: z.exactOptional(SecurityContextSchema),
      containers: z.exactOptional(z.array(ContainerSchema)),
      initContainers: z.exactOptional(z.array(ContainerSchema)),
      ephemeralContainers: z.exactOptional(z.array(ContainerSchema)),
    }),
  ),
});

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Checks the envelope of a decoded AdmissionReview; `problem` says which field was wrong. */
export function parseAdmissionReview(body: unknown): ParseResult<AdmissionReviewRequest> {
  if (isPlainAdmissionReview(body)) {
    const review = body as AdmissionReviewRequest;
    return { ok: true, value: { apiVersion: review.apiVersion, request: review.request } };
  }
  const result = AdmissionReviewSchema.safeParse(body);
  if (!result.success) return { ok: false, problem: describeIssue(result.error) };
  return { ok: true, value: { apiVersion: result.data.apiVersion, request: result.data.request } };
}

/** Checks that `object` is a pod whose GMSA fields have the right types; `field` names where it was wrong. */
export function parsePod(object: unknown, field: "object" | "oldObject"): ParseResult<Pod> {
  if (isPlainPod(object)) return { ok: true, value: object as Pod };
  const result = PodSchema.safeParse(object);
  if (!result.success) return { ok: false, problem: `request.${field}: ${describeIssue(result.error)}` };
  return { ok: true, value: result.data };
}

/** True when the review is about a core/v1 Pod (or one of its subresources). */
export function isPodReview(request: AdmissionRequest): boolean {
  return request.kind.group === "" && request.kind.kind === "Pod";
}

function describeIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
  return `${path === "" ? "(root)" : path}: ${issue.message}`.slice(0, 300);
}
