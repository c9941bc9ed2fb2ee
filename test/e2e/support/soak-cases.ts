/**
 * The soak test's mix of inputs: each case is one kind of review with the only right answer to it,
 * checked on every reply (HTTP status, allowed, status code, a patch or none, the uid echoed).
 */
import type { AdmissionReviewResponse, Pod } from "../../../shared/admission/review.ts";
import { container, e2ePod } from "./pods.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../../shared/config/index.ts";

/** The right answer to a case. */
export interface SoakExpectation {
  /** HTTP status: 200 for every admission outcome, 400 for a body that is not a review. */
  httpStatus: number;
  allowed?: boolean;
  /** `response.status.code` of a denial. */
  code?: number;
  /** Expand of a GMSA pod returns a patch; nothing else does. */
  patch?: boolean;
}

export interface SoakCase {
  name: string;
  fn: FunctionName;
  /** The request body for a given uid. */
  body: (uid: string) => string;
  expect: SoakExpectation;
}

/** Every case, for credspec webapp01 (which only `default/gmsa-app` may use) with contents `webapp01`. */
export function buildSoakCases(webapp01: unknown, webapp02: unknown): SoakCase[] {
  const contents = JSON.stringify(webapp01);
  const gmsa = (name: string, options: { serviceAccountName?: string; credspec?: string; contents?: string } = {}) =>
    buildPod({
      ...e2ePod("soak", name),
      serviceAccountName: options.serviceAccountName ?? "gmsa-app",
      containers: [
        container("app", {
          gmsaCredentialSpecName: options.credspec ?? "webapp01",
          ...(options.contents === undefined ? {} : { gmsaCredentialSpec: options.contents }),
        }),
        container("sidecar"),
      ],
    });
  const plain = buildPod({ ...e2ePod("soak", "plain"), containers: [container("app")] });
  const review = (pod: Pod) => (uid: string) => JSON.stringify(buildReview(pod, { uid, namespace: "default" }));
  const allowed = (patch: boolean): SoakExpectation => ({ httpStatus: 200, allowed: true, patch });
  const denied = (code: number): SoakExpectation => ({ httpStatus: 200, allowed: false, code });
  const cases: SoakCase[] = (
    [
      ["expand: GMSA pod, inlined", "expand", gmsa("ok"), allowed(true)],
      ["expand: unknown credspec (422)", "expand", gmsa("unknown", { credspec: "no-such-credspec" }), denied(422)],
      ["expand: no GMSA (allowed, no patch)", "expand", plain, allowed(false)],
      ["authorize: GMSA pod as expanded", "authorize", gmsa("ok", { contents }), allowed(false)],
      [
        "authorize: service account may not use it (403)",
        "authorize",
        gmsa("forbidden", { serviceAccountName: "default", contents }),
        denied(403),
      ],
      [
        "authorize: contents differ from the credspec (422)",
        "authorize",
        gmsa("mismatch", { contents: JSON.stringify(webapp02) }),
        denied(422),
      ],
      // Missing (422) and not usable (403): the denial names both and answers with the more telling 403.
      [
        "authorize: unknown credspec nobody may use (403 over 422)",
        "authorize",
        gmsa("unknown", { credspec: "no-such-credspec", contents }),
        denied(403),
      ],
      ["authorize: no GMSA (allowed)", "authorize", plain, allowed(false)],
    ] as [string, FunctionName, Pod, SoakExpectation][]
  ).map(([name, fn, pod, expect]) => ({ name, fn, body: review(pod), expect }));
  for (const fn of FUNCTION_NAMES) {
    cases.push(
      {
        name: `${fn}: body is not JSON (HTTP 400)`,
        fn,
        body: () => '{"apiVersion": "admission.k8s.io/v1", "kind": ',
        expect: { httpStatus: 400 },
      },
      {
        name: `${fn}: not an AdmissionReview (HTTP 400)`,
        fn,
        body: (uid) => JSON.stringify({ kind: "AdmissionReview", request: { uid } }),
        expect: { httpStatus: 400 },
      },
    );
  }
  return cases;
}

/** Why a reply is not the right answer to `soakCase` sent with `uid`, or undefined when it is. */
export function checkSoakReply(soakCase: SoakCase, uid: string, status: number, text: string): string | undefined {
  const { expect } = soakCase;
  if (status !== expect.httpStatus) return `HTTP ${status}, expected ${expect.httpStatus}: ${text.slice(0, 200)}`;
  if (status !== 200) return undefined;
  const { response } = JSON.parse(text) as Partial<AdmissionReviewResponse>;
  if (response?.uid !== uid) return `uid ${String(response?.uid)}, expected ${uid}`;
  if (response.allowed !== expect.allowed) return `allowed ${String(response.allowed)}: ${text.slice(0, 300)}`;
  if (response.status?.code !== expect.code)
    return `code ${String(response.status?.code)}, expected ${String(expect.code)}: ${text.slice(0, 300)}`;
  if (expect.patch !== undefined && (response.patch !== undefined) !== expect.patch)
    return `patch ${response.patch === undefined ? "missing" : "present"}`;
  return undefined;
}
