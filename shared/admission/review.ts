import * as z from "zod/mini";
import { AdmissionError, asAdmissionError } from "../errors.ts";
import type { Pod } from "../policy/pod.ts";
import type { ReviewFacts } from "../policy/review.ts";
import { formatIssuePath } from "../zod-english.ts";

/** AdmissionReview versions we accept and answer in (the reply uses the request's version). */
const ADMISSION_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;
export type AdmissionVersion = (typeof ADMISSION_VERSIONS)[number];

// Decoded JSON has no undefined values: exactOptional keeps the parsed pod's optional fields free of `| undefined`.
/** A container's or the pod's `securityContext.windowsOptions`: the fields the GMSA rules read, typed. */
export const WindowsOptionsSchema = z.looseObject({
  gmsaCredentialSpecName: z.exactOptional(z.string()),
  gmsaCredentialSpec: z.exactOptional(z.string()),
  runAsUserName: z.exactOptional(z.string()),
  hostProcess: z.exactOptional(z.boolean()),
});
const SecurityContextSchema = z.looseObject({ windowsOptions: z.exactOptional(WindowsOptionsSchema) });

/** A container, init container or ephemeral container. */
export const ContainerSchema = z.looseObject({ name: z.string(), securityContext: z.exactOptional(SecurityContextSchema) });

/** The pod fields the GMSA rules read, type-checked; every other field passes through unchanged. */
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

const AdmissionRequestSchema = z.looseObject({
  uid: z.string().check(z.minLength(1), z.maxLength(256)),
  kind: z.object({ group: z.string(), version: z.string(), kind: z.string() }),
  resource: z.optional(z.object({ group: z.string(), version: z.string(), resource: z.string() })),
  subResource: z.optional(z.string()),
  name: z.optional(z.string()),
  namespace: z.optional(z.string()),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  object: z.optional(z.unknown()),
  oldObject: z.optional(z.unknown()),
  dryRun: z.optional(z.boolean()),
  // Strict about what it keeps: the requester goes into access reviews as parsed (REVIEW_REQUESTING_USER).
  userInfo: z.optional(
    z.object({
      username: z.exactOptional(z.string()),
      uid: z.exactOptional(z.string()),
      groups: z.exactOptional(z.array(z.string())),
      extra: z.exactOptional(z.record(z.string(), z.array(z.string()))),
    }),
  ),
});

const AdmissionReviewSchema = z.looseObject({
  apiVersion: z.enum(ADMISSION_VERSIONS),
  kind: z.literal("AdmissionReview"),
  request: AdmissionRequestSchema,
});

/** An admission request, as its schema checked it. */
export type AdmissionRequest = z.infer<typeof AdmissionRequestSchema>;
/** An AdmissionReview, as its schema checked it. */
export type AdmissionReviewRequest = z.infer<typeof AdmissionReviewSchema>;

/** Checks the envelope of a decoded AdmissionReview; `problem` says which field was wrong. */
export function parseAdmissionReview(body: unknown): { ok: true; value: AdmissionReviewRequest } | { ok: false; problem: string } {
  const result = AdmissionReviewSchema.safeParse(body);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: describeIssue(result.error) };
}

function describeIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  return `${formatIssuePath(issue.path) || "(root)"}: ${issue.message}`.slice(0, 300);
}

/** What the policy reads from an admission request; a review whose pod cannot be read comes back `invalid` (400). */
export function readReview(request: AdmissionRequest): ReviewFacts {
  const { operation, userInfo, resource } = request;
  const requester = userInfo?.username === undefined || userInfo.username === "" ? undefined : { ...userInfo, username: userInfo.username };
  // A CONNECT's kind and object are its options (PodExecOptions, PodAttachOptions): the request names the pod.
  const connect = { object: "pod", operation: "CONNECT", subResource: request.subResource, namespace: request.namespace ?? "", name: request.name ?? "", requester } as const;
  if (operation === "CONNECT" && resource?.group === "" && resource.resource === "pods") return connect;
  const { group, version, kind } = request.kind;
  if (group !== "" || kind !== "Pod") return { object: "other", group, version, kind };
  if (operation === "DELETE") return { object: "pod", operation };
  if (operation === "CONNECT") return connect;
  try {
    const pod = readPod(request, "object");
    const common = { object: "pod", namespace: request.namespace ?? pod.metadata?.namespace ?? "default", pod, requester } as const;
    if (operation === "CREATE") return { ...common, operation };
    return { ...common, operation, subResource: request.subResource, oldPod: readPod(request, "oldObject") };
  } catch (error) {
    return { object: "invalid", error: asAdmissionError(error) };
  }
}

/**
 * Container names must be unique across all three lists: the rules name places by container name, and a webhook may
 * see a pod before the API server's validation has run.
 */
function readPod(request: AdmissionRequest, field: "object" | "oldObject"): Pod {
  const value = request[field];
  if (value === undefined || value === null) throw new AdmissionError(`request.${field} is missing`, { code: "ERR_INVALID_REVIEW" });
  const result = PodSchema.safeParse(value);
  if (!result.success) throw new AdmissionError(`request.${field}: ${describeIssue(result.error)}`, { code: "ERR_INVALID_REVIEW" });
  const names = new Set<string>();
  for (const list of ["containers", "initContainers", "ephemeralContainers"] as const) {
    for (const { name } of result.data.spec?.[list] ?? []) {
      if (names.has(name)) throw new AdmissionError(`request.${field}: container name ${JSON.stringify(name.slice(0, 80))} is used more than once`, { code: "ERR_INVALID_REVIEW" });
      names.add(name);
    }
  }
  return result.data;
}
