/**
 * What every answer of the functions must look like, whatever was sent: a well-formed AdmissionReview
 * (docs/security.md, Status codes) or one of the documented HTTP errors with a JSON body.
 */
import fastJsonPatch from "fast-json-patch";
import type { AdmissionReviewResponse } from "../../../shared/admission/review.ts";
import { decodePatch } from "../../support/reviews.ts";
import { mayNameDifferingKeys } from "./oracle.ts";
import { CONTENTS_MARKER, CREDSPECS } from "./world.ts";

const MARKERS = new RegExp(`${CONTENTS_MARKER}-\\w+`, "g");

/** The world's credspec values (strings of 4 or more characters, numbers' texts) and key paths (`a.b`, `a[0]`, `a.b[0].c`). */
const SECRETS = (() => {
  const values = new Set<string>();
  const paths = new Set<string>();
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) walk(child, path === "" ? key : `${path}.${key}`);
    } else if (typeof value === "string" && value.length >= 4) values.add(value);
    if (path.includes(".") || path.includes("[")) paths.add(path);
  };
  for (const credspec of CREDSPECS.values()) walk(credspec, "");
  return {
    values: [...values],
    paths: [...paths],
    keys: [...new Set([...paths].flatMap((p) => p.split(/[.[\]]/)).filter((k) => k.length >= 4 && !/^\d+$/.test(k)))],
  };
})();

/**
 * Why `message` (a 403: the subject may not use the credspec) tells something of a credspec's contents the request did
 * not send: one of its values, or (with `checkKeys`) a key path or a key as a word of its own; undefined when it does not.
 */
export function describeLeak(message: string, sentText: string, checkKeys: boolean): string | undefined {
  for (const value of SECRETS.values)
    if (message.includes(value) && !sentText.includes(value)) return `value ${JSON.stringify(value)}`;
  if (!checkKeys) return undefined;
  for (const path of SECRETS.paths) if (message.includes(path)) return `key path ${path}`;
  for (const key of SECRETS.keys)
    if (new RegExp(`(^|[^A-Za-z0-9_])${key}($|[^A-Za-z0-9_])`).test(message)) return `key ${key}`;
  return undefined;
}

export const HTTP_ERRORS = new Set([400, 401, 404, 405, 413, 415]);
export const DENIAL_CODES = new Set([400, 403, 422, 500]);

export interface SentReview {
  apiVersion: string;
  request: { uid: string; object?: unknown };
}

export type Checked =
  | { http: number; reply?: undefined; review?: undefined }
  | { http: 200; reply: AdmissionReviewResponse; review: SentReview };

/** Decodes a sent body as the app does (UTF-8, invalid bytes replaced), or undefined when it is not JSON. */
export function decodeSent(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body)) as unknown;
  } catch {
    return undefined;
  }
}

/** Throws, with a reason, when `res` breaks the contract for the request body `sent`. */
export async function checkReply(fn: "expand" | "authorize", sent: Uint8Array, res: Response): Promise<Checked> {
  const text = await res.text();
  const fail = (why: string): never => {
    throw new Error(`${fn}: ${why} (HTTP ${res.status}: ${text.slice(0, 300)})`);
  };
  const body = (() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return fail("body is not JSON");
    }
  })();
  if (res.status !== 200) {
    if (!HTTP_ERRORS.has(res.status)) fail("undocumented HTTP status");
    if (typeof (body as { error?: unknown }).error !== "string") fail("HTTP error without an error text");
    return { http: res.status };
  }
  const review = decodeSent(sent) as SentReview | undefined;
  if (review === undefined) fail("200 for a body that is not JSON");
  const reply = body as AdmissionReviewResponse;
  if (reply.kind !== "AdmissionReview" || reply.apiVersion !== review?.apiVersion) fail("wrong kind or apiVersion");
  const r = reply.response;
  if (typeof r !== "object" || r === null || r.uid !== review?.request.uid) fail("uid not echoed");
  if (typeof r.allowed !== "boolean") fail("allowed is not a boolean");
  if (!r.allowed) {
    if (r.status === undefined || !DENIAL_CODES.has(r.status.code)) fail("denial without a documented status code");
    if (typeof r.status?.message !== "string" || r.status.message.length === 0 || r.status.message.length > 2048)
      fail("denial message missing or over 2048");
    if (r.patch !== undefined) fail("denial with a patch");
  }
  // A denial may quote the caller's own (capped) input, never a credspec the caller did not send.
  const sentText = new TextDecoder().decode(sent);
  for (const [marker] of text.matchAll(MARKERS))
    if (!sentText.includes(marker)) fail(`reply leaks credspec contents (${marker})`);
  // A 403 says nothing of how the pod's contents differ from a credspec its subject may not use (keys of one it may
  // use are named when its contents differ too: the message lists every refusal).
  const leak =
    r.status?.code === 403 ? describeLeak(r.status.message, sentText, !mayNameDifferingKeys(review)) : undefined;
  if (leak !== undefined) fail(`a 403 tells the credspec's ${leak}`);
  const warnings = r.warnings ?? [];
  if (warnings.some((w) => typeof w !== "string" || w.length > 256) || warnings.join("").length > 4096)
    fail("warnings over the limits");
  if (r.patch !== undefined) {
    if (fn === "authorize") fail("authorize returned a patch");
    if (r.patchType !== "JSONPatch") fail("patch without patchType JSONPatch");
    const ops = decodePatch(reply);
    if (!Array.isArray(ops) || ops.length === 0) fail("empty or malformed patch");
    try {
      fastJsonPatch.applyPatch(structuredClone(review?.request.object), ops, true, true);
    } catch (error) {
      // fast-json-patch recurses: a pod nested thousands deep can overflow the test's stack, not the app's.
      if (!(error instanceof RangeError)) fail(`patch does not apply to the pod: ${(error as Error).message}`);
    }
  }
  return { http: 200, reply, review: review as SentReview };
}
