/** AdmissionReview builders and reply readers for handler tests. */
import fastJsonPatch from "fast-json-patch";
import type { AdmissionReviewResponse, AdmissionVersion, Pod } from "../../shared/admission/review.ts";
import { WEBAPP1 } from "./fake-gmsa-client.ts";

export interface ReviewOptions {
  apiVersion?: AdmissionVersion;
  uid?: string;
  operation?: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  oldObject?: unknown;
  subResource?: string;
  dryRun?: boolean;
  kind?: { group: string; version: string; kind: string };
  namespace?: string;
  /** Who sent the request; default user "admin" in group "system:authenticated". */
  userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

/** An AdmissionReview request about `object` (a CREATE of a core/v1 Pod in "ns1" unless told otherwise). */
export function buildReview(object: unknown, options: ReviewOptions = {}): Record<string, unknown> {
  const pod = object as Pod | null | undefined;
  return {
    apiVersion: options.apiVersion ?? "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: options.uid ?? "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: options.kind ?? { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      ...(options.subResource === undefined ? {} : { subResource: options.subResource }),
      name: pod?.metadata?.name ?? "web",
      namespace: options.namespace ?? pod?.metadata?.namespace ?? "ns1",
      operation: options.operation ?? "CREATE",
      userInfo: options.userInfo ?? { username: "admin", groups: ["system:authenticated"] },
      object,
      ...(options.oldObject === undefined ? {} : { oldObject: options.oldObject }),
      dryRun: options.dryRun ?? false,
    },
  };
}

export interface InlinedGmsaReviewOptions {
  uid: string;
  namespace: string;
  /** The credspec container "web" names. */
  credSpecName: string;
  /** Its contents, inlined as JSON. */
  contents: unknown;
  serviceAccountName?: string;
}

/** A CREATE review of pod "web" whose container "web" names a credspec with its contents inlined, as expand leaves it. */
export function buildInlinedGmsaReview(options: InlinedGmsaReviewOptions): Record<string, unknown> {
  const windowsOptions = {
    gmsaCredentialSpecName: options.credSpecName,
    gmsaCredentialSpec: JSON.stringify(options.contents),
  };
  const pod = {
    metadata: { name: "web" },
    spec: {
      ...(options.serviceAccountName === undefined ? {} : { serviceAccountName: options.serviceAccountName }),
      containers: [{ name: "web", securityContext: { windowsOptions } }],
    },
  };
  return buildReview(pod, { uid: options.uid, namespace: options.namespace });
}

/**
 * The JSON of a review that names credspec "webapp1" of the counting client with its contents inlined: both
 * functions allow it, and both call the API server to check it.
 */
export function gmsaReview(uid = "uid-1"): string {
  return JSON.stringify(
    buildInlinedGmsaReview({ uid, namespace: "default", credSpecName: "webapp1", contents: WEBAPP1 }),
  );
}

/** The RFC 6902 operations of a reply (empty when it carries no patch). */
export function decodePatch(reply: AdmissionReviewResponse): fastJsonPatch.Operation[] {
  if (reply.response.patch === undefined) return [];
  const binary = atob(reply.response.patch);
  const text = new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  return JSON.parse(text) as fastJsonPatch.Operation[];
}

/** `pod` after the reply's patch, applied with validation as the API server would (the input is not changed). */
export function applyReplyPatch(pod: Pod, reply: AdmissionReviewResponse): Pod {
  return fastJsonPatch.applyPatch(structuredClone(pod), decodePatch(reply), true, false).newDocument;
}
