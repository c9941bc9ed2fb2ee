import * as z from "zod";
import type { Pod } from "../policy/pod.ts";

/** AdmissionReview versions we accept and answer in (the reply uses the request's version). */
export const ADMISSION_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;
export type AdmissionVersion = (typeof ADMISSION_VERSIONS)[number];

const GroupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string() });

const AdmissionRequestSchema = z.looseObject({
  uid: z.string().min(1).max(256),
  kind: GroupVersionKind,
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  object: z.unknown().optional(),
  oldObject: z.unknown().optional(),
  dryRun: z.boolean().optional(),
});

const AdmissionReviewSchema = z.looseObject({
  apiVersion: z.enum(ADMISSION_VERSIONS),
  kind: z.literal("AdmissionReview"),
  request: AdmissionRequestSchema,
});

export type AdmissionRequest = z.infer<typeof AdmissionRequestSchema>;
export interface AdmissionReviewRequest {
  apiVersion: AdmissionVersion;
  request: AdmissionRequest;
}

const WindowsOptionsSchema = z.looseObject({
  gmsaCredentialSpecName: z.string().optional(),
  gmsaCredentialSpec: z.string().optional(),
  runAsUserName: z.string().optional(),
  hostProcess: z.boolean().optional(),
});
const SecurityContextSchema = z.looseObject({ windowsOptions: WindowsOptionsSchema.optional() });
const ContainerSchema = z.looseObject({ name: z.string(), securityContext: SecurityContextSchema.optional() });

/** The pod fields the GMSA rules read, type-checked; everything else passes through unchanged. */
const PodSchema = z.looseObject({
  metadata: z
    .looseObject({
      name: z.string().optional(),
      generateName: z.string().optional(),
      namespace: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  spec: z
    .looseObject({
      serviceAccountName: z.string().optional(),
      hostname: z.string().optional(),
      securityContext: SecurityContextSchema.optional(),
      containers: z.array(ContainerSchema).optional(),
      initContainers: z.array(ContainerSchema).optional(),
      ephemeralContainers: z.array(ContainerSchema).optional(),
    })
    .optional(),
});

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

/** True when the review is about a core/v1 Pod (or one of its subresources). */
export function isPodReview(request: AdmissionRequest): boolean {
  return request.kind.group === "" && request.kind.kind === "Pod";
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
  return `${path === "" ? "(root)" : path}: ${issue.message}`.slice(0, 300);
}
