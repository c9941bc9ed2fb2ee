/**
 * The AdmissionReview both ways: the request checked (zod) with the pod's shape, and the reply built from a
 * {@link Decision}. The policy imports the pod's types and Decision from here, never the reverse.
 */
import type { Operation as PatchOperation } from "fast-json-patch";
import * as z from "zod/mini";
import { AdmissionError, pickStatus } from "../errors.ts";
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
export const ContainerSchema = z.looseObject({
  name: z.string(),
  securityContext: z.exactOptional(SecurityContextSchema),
});

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

// The pod's types are the output of the schemas that check a review's pod, so the type and the check cannot drift.
export type Pod = z.output<typeof PodSchema>;
export type Container = z.output<typeof ContainerSchema>;
export type WindowsOptions = z.output<typeof WindowsOptionsSchema>;

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
export function parseAdmissionReview(
  body: unknown,
): { ok: true; value: AdmissionReviewRequest } | { ok: false; problem: string } {
  const result = AdmissionReviewSchema.safeParse(body);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: describeIssue(result.error) };
}

function describeIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  return `${formatIssuePath(issue.path) || "(root)"}: ${issue.message}`.slice(0, 300);
}

/**
 * The pod in `request[field]`, checked. Container names must be unique across all three lists: the rules name places
 * by container name, and a webhook may see a pod before the API server's validation has run.
 * @throws AdmissionError ERR_INVALID_REVIEW (400) when the field is missing or is not such a pod.
 */
export function readRequestPod(request: AdmissionRequest, field: "object" | "oldObject"): Pod {
  const value = request[field];
  if (value === undefined || value === null)
    throw new AdmissionError(`request.${field} is missing`, { code: "ERR_INVALID_REVIEW" });
  const result = PodSchema.safeParse(value);
  if (!result.success)
    throw new AdmissionError(`request.${field}: ${describeIssue(result.error)}`, { code: "ERR_INVALID_REVIEW" });
  const names = new Set<string>();
  for (const list of ["containers", "initContainers", "ephemeralContainers"] as const) {
    for (const { name } of result.data.spec?.[list] ?? []) {
      if (names.has(name))
        throw new AdmissionError(
          `request.${field}: container name ${JSON.stringify(name.slice(0, 80))} is used more than once`,
          { code: "ERR_INVALID_REVIEW" },
        );
      names.add(name);
    }
  }
  return result.data;
}

/** Allowed (expand: with its patch) or denied with every refusal; the API server prefixes the bare audit keys. */
export type Decision =
  | { allowed: true; patch?: PatchOperation[]; warnings?: string[]; auditAnnotations?: Record<string, string> }
  | { allowed: false; errors: AdmissionError[]; warnings?: string[]; auditAnnotations?: Record<string, string> };

/** The AdmissionReview we answer with. */
export interface AdmissionReviewResponse {
  apiVersion: AdmissionVersion;
  kind: "AdmissionReview";
  response: {
    uid: string;
    allowed: boolean;
    status?: { status: "Failure"; code: number; reason: string; message: string };
    patch?: string;
    patchType?: "JSONPatch";
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}

/** Denial messages are capped so one review cannot produce an unbounded reply. */
export const MAX_MESSAGE_LENGTH = 2048;
/** The API server truncates each warning past 256 characters and drops them past 4 KiB in all. */
export const MAX_WARNING_LENGTH = 256;
export const MAX_WARNINGS_TOTAL = 4096;

const REASONS: Record<number, string> = { 400: "BadRequest", 403: "Forbidden", 422: "Invalid", 500: "InternalError" };

/** Turns an outcome into the AdmissionReview reply: uid echoed, request's apiVersion, patch only when non-empty. */
export function buildAdmissionResponse(
  apiVersion: AdmissionVersion,
  uid: string,
  outcome: Decision,
): AdmissionReviewResponse {
  const response: AdmissionReviewResponse["response"] = { uid, allowed: outcome.allowed };
  if (outcome.allowed && outcome.patch !== undefined && outcome.patch.length > 0) {
    response.patch = encodeBase64(JSON.stringify(outcome.patch));
    response.patchType = "JSONPatch";
  }
  if (!outcome.allowed) {
    const errors =
      outcome.errors.length > 0
        ? outcome.errors
        : [new AdmissionError("denied without a reason", { code: "ERR_INTERNAL" })];
    const code = pickStatus(errors);
    response.status = {
      status: "Failure",
      code,
      reason: REASONS[code] ?? "Invalid",
      message: joinMessages(errors, uid),
    };
  }
  const warnings = capWarnings(outcome.warnings ?? []);
  if (warnings.length > 0) response.warnings = warnings;
  if (Object.keys(outcome.auditAnnotations ?? {}).length > 0)
    response.auditAnnotations = { ...outcome.auditAnnotations };
  return { apiVersion, kind: "AdmissionReview", response };
}

function joinMessages(errors: AdmissionError[], uid: string): string {
  const parts: string[] = [];
  let length = 0;
  for (const [i, error] of errors.entries()) {
    // Our own bugs and credential failures get a generic text: their message may hold internals (plugin stderr,
    // token paths, issuer URLs, account ids); the uid finds the log line, which has the detail.
    let text = error.message;
    if (error.code === "ERR_INTERNAL") text = describeHidden(error, uid, "internal error in the GMSA webhook");
    else if (error.code === "ERR_CREDENTIALS")
      text = describeHidden(
        error,
        uid,
        "the GMSA webhook could not authenticate to the API server",
        ", so it fails closed",
      );
    const room = MAX_MESSAGE_LENGTH - 40 - length;
    if (text.length > room) {
      // One long message (thousands of containers named) is cut, not dropped: the reader still learns what failed.
      if (i > 0 && room < 200) {
        parts.push(`… and ${errors.length - i} more`);
        break;
      }
      text = `${text.slice(0, room)}…`;
    }
    parts.push(text);
    length += text.length + 2;
  }
  return parts.join("; ");
}

/** What failed, where, and where its detail is logged; never the detail, which may quote input or internals. */
function describeHidden(error: AdmissionError, uid: string, what: string, after = ""): string {
  const place = error.where === undefined ? "" : `${error.where.place}: `;
  const credspec =
    error.where?.credSpecName === undefined ? "" : ` while checking credspec "${error.where.credSpecName}"`;
  return `${place}${what}${credspec}${after} (its log has the cause under request uid ${uid.slice(0, 64)})`;
}

function capWarnings(warnings: string[]): string[] {
  const out: string[] = [];
  let total = 0;
  for (const warning of warnings) {
    const text = warning.length > MAX_WARNING_LENGTH ? `${warning.slice(0, MAX_WARNING_LENGTH - 1)}…` : warning;
    if (total + text.length > MAX_WARNINGS_TOTAL) break;
    out.push(text);
    total += text.length;
  }
  return out;
}

/** Text without a character outside printable ASCII is its own UTF-8, which `btoa` takes as it is. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

function encodeBase64(text: string): string {
  // A patch is almost always ASCII; the round trip through UTF-8 bytes cost 3% of a warm expand review's CPU.
  if (!NOT_PRINTABLE_ASCII.test(text)) return btoa(text);
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  // In chunks: String.fromCharCode takes each byte as an argument, and arguments are limited.
  for (let i = 0; i < bytes.length; i += 0x2000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  return btoa(binary);
}
