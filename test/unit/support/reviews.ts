/** AdmissionReview builders and reply readers for handler tests. */
import fastJsonPatch from "fast-json-patch";
import type { AdmissionReviewResponse } from "../../../shared/admission/response.ts";
import type { AdmissionVersion } from "../../../shared/admission/review.ts";
import type { PatchOperation } from "../../../shared/policy/patch.ts";
import type { Pod } from "../../../shared/policy/pod.ts";

export interface ReviewOptions {
  apiVersion?: AdmissionVersion;
  uid?: string;
  operation?: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  oldObject?: unknown;
  subResource?: string;
  dryRun?: boolean;
  kind?: { group: string; version: string; kind: string };
  namespace?: string;
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
      userInfo: { username: "admin", groups: ["system:authenticated"] },
      object,
      ...(options.oldObject === undefined ? {} : { oldObject: options.oldObject }),
      dryRun: options.dryRun ?? false,
    },
  };
}

/** The RFC 6902 operations of a reply (empty when it carries no patch). */
export function decodePatch(reply: AdmissionReviewResponse): PatchOperation[] {
  if (reply.response.patch === undefined) return [];
  const binary = atob(reply.response.patch);
  const text = new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  return JSON.parse(text) as PatchOperation[];
}

/** `pod` after the reply's patch, applied with validation as the API server would (the input is not changed). */
export function applyReplyPatch(pod: Pod, reply: AdmissionReviewResponse): Pod {
  return fastJsonPatch.applyPatch(structuredClone(pod), decodePatch(reply), true, false).newDocument;
}
