/**
 * The soak test's mix of inputs: each case is one kind of review with the only right answer to it,
 * checked on every reply (HTTP status, allowed, status code, a patch or none, the uid echoed).
 */
import type { Pod } from "../../../shared/admission/review.ts";
import { container, e2ePod } from "./pods.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";

export type SoakFunction = "expand" | "authorize";

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
  fn: SoakFunction;
  /** The request body for a given uid. */
  body: (uid: string) => string;
  expect: SoakExpectation;
}

/** A CREATE review of `pod`, as the API server sends it. */
function review(pod: Pod, uid: string): string {
  return JSON.stringify(buildReview(pod, { uid, namespace: "default" }));
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
  const cases: SoakCase[] = [
    {
      name: "expand: GMSA pod, inlined",
      fn: "expand",
      body: (uid) => review(gmsa("ok"), uid),
      expect: { httpStatus: 200, allowed: true, patch: true },
    },
    {
      name: "expand: unknown credspec (422)",
      fn: "expand",
      body: (uid) => review(gmsa("unknown", { credspec: "no-such-credspec" }), uid),
      expect: { httpStatus: 200, allowed: false, code: 422 },
    },
    {
      name: "expand: no GMSA (allowed, no patch)",
      fn: "expand",
      body: (uid) => review(plain, uid),
      expect: { httpStatus: 200, allowed: true, patch: false },
    },
    {
      name: "authorize: GMSA pod as expanded",
      fn: "authorize",
      body: (uid) => review(gmsa("ok", { contents }), uid),
      expect: { httpStatus: 200, allowed: true, patch: false },
    },
    {
      name: "authorize: service account may not use it (403)",
      fn: "authorize",
      body: (uid) => review(gmsa("forbidden", { serviceAccountName: "default", contents }), uid),
      expect: { httpStatus: 200, allowed: false, code: 403 },
    },
    {
      name: "authorize: contents differ from the credspec (422)",
      fn: "authorize",
      body: (uid) => review(gmsa("mismatch", { contents: JSON.stringify(webapp02) }), uid),
      expect: { httpStatus: 200, allowed: false, code: 422 },
    },
    {
      // Missing (422) and not usable (403): the denial names both and answers with the more telling 403.
      name: "authorize: unknown credspec nobody may use (403 over 422)",
      fn: "authorize",
      body: (uid) => review(gmsa("unknown", { credspec: "no-such-credspec", contents }), uid),
      expect: { httpStatus: 200, allowed: false, code: 403 },
    },
    {
      name: "authorize: no GMSA (allowed)",
      fn: "authorize",
      body: (uid) => review(plain, uid),
      expect: { httpStatus: 200, allowed: true, patch: false },
    },
  ];
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

interface ReviewReply {
  response?: { uid?: string; allowed?: boolean; status?: { code?: number }; patch?: string };
}

/** Why a reply is not the right answer to `soakCase` sent with `uid`, or undefined when it is. */
export function checkSoakReply(soakCase: SoakCase, uid: string, status: number, text: string): string | undefined {
  const { expect } = soakCase;
  if (status !== expect.httpStatus) return `HTTP ${status}, expected ${expect.httpStatus}: ${text.slice(0, 200)}`;
  if (status !== 200) return undefined;
  const reply = JSON.parse(text) as ReviewReply;
  const response = reply.response ?? {};
  if (response.uid !== uid) return `uid ${String(response.uid)}, expected ${uid}`;
  if (response.allowed !== expect.allowed) return `allowed ${String(response.allowed)}: ${text.slice(0, 300)}`;
  if (response.status?.code !== expect.code)
    return `code ${String(response.status?.code)}, expected ${String(expect.code)}: ${text.slice(0, 300)}`;
  if (expect.patch !== undefined && (response.patch !== undefined) !== expect.patch)
    return `patch ${response.patch === undefined ? "missing" : "present"}`;
  return undefined;
}
