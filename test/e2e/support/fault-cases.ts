/**
 * What the fault test sends while kube-apiserver and etcd go down and come back, and how each answer
 * is judged: the kinds of pod create through the API server, the kinds of review sent straight to the
 * functions, the class of each answer and whether it could ever be right.
 */
import type { AdmissionReviewResponse, Pod } from "../../../shared/admission/review.ts";
import { buildReview } from "../../support/reviews.ts";
import { container, e2ePod } from "./pods.ts";
import { buildPod } from "../../support/pods.ts";

/** Where an answer came from. */
export type FaultVia = "apiserver" | "direct";

/**
 * - `admitted`: the API server created the pod (201), or a function allowed the review.
 * - `denied`: a webhook denial with a rule's code (403, 422).
 * - `failClosed`: a webhook denial with code 500 (the functions could not reach the API server).
 * - `apiserver`: refused by the API server itself (connection refused or reset, its own 5xx, a timeout).
 * - `other`: anything else (the API server could not call a function, a function answered no review).
 */
export type FaultOutcome = "admitted" | "denied" | "failClosed" | "apiserver" | "other";

/** One answer, judged. `wrong` says why it must never happen. */
export interface FaultAnswer {
  outcome: FaultOutcome;
  wrong?: string;
}

/** A kind of request with what may come back. */
export interface FaultCase {
  name: string;
  via: FaultVia;
  /** May it be admitted (allowed) at all? */
  admissible: boolean;
  /** Rule codes of a right denial besides the fail-closed 500. */
  denialCodes: readonly number[];
}

/** Pod creates through the API server, cycled by the senders. */
export const APISERVER_CASES: readonly FaultCase[] = [
  { name: "allowed", via: "apiserver", admissible: true, denialCodes: [] },
  { name: "forbidden", via: "apiserver", admissible: false, denialCodes: [403] },
  { name: "missing", via: "apiserver", admissible: false, denialCodes: [422, 403] },
];

/**
 * Reviews sent straight to the functions, each naming a credspec no earlier review named, so no cache
 * can answer: `fresh-*` name an existing credspec gmsa-app may use (allowed when the API server is up),
 * `absent-*` one that does not exist.
 */
export const DIRECT_CASES: readonly FaultCase[] = [
  { name: "fresh-expand", via: "direct", admissible: true, denialCodes: [] },
  { name: "fresh-authorize", via: "direct", admissible: true, denialCodes: [] },
  { name: "absent-expand", via: "direct", admissible: false, denialCodes: [422] },
  { name: "absent-authorize", via: "direct", admissible: false, denialCodes: [422, 403] },
];

/** A pod of `serviceAccountName` whose container "app" names `credspec`, with `contents` inlined when given. */
const podNaming = (name: string, credspec: string, serviceAccountName: string, contents?: string) =>
  buildPod({
    ...e2ePod("faults", name),
    serviceAccountName,
    containers: [
      container("app", {
        gmsaCredentialSpecName: credspec,
        ...(contents === undefined ? {} : { gmsaCredentialSpec: contents }),
      }),
    ],
  });

/** The pod of an API-server case: `allowed` and `forbidden` name webapp01 (only gmsa-app may use it). */
export function faultPod(caseName: string, n: number): Pod {
  const credspec = caseName === "missing" ? "no-such-credspec" : "webapp01";
  return podNaming(`faults-${caseName}-${n}`, credspec, caseName === "forbidden" ? "default" : "gmsa-app");
}

/** A CREATE review in namespace default of a pod naming `credspec` (contents inlined when given). */
export function directReview(uid: string, credspec: string, contents?: string): string {
  return JSON.stringify(buildReview(podNaming(uid, credspec, "gmsa-app", contents), { uid, namespace: "default" }));
}

const WEBHOOK_DENIAL = /admission webhook "[^"]+" denied the request/;

/** Judges a denial's code against the case. */
function judgeDenial(faultCase: FaultCase, code: number | undefined): FaultAnswer {
  if (code === 500) return { outcome: "failClosed" };
  const wrong =
    code !== undefined && faultCase.denialCodes.includes(code) ? undefined : `denied with code ${String(code)}`;
  return { outcome: "denied", ...(wrong === undefined ? {} : { wrong }) };
}

/**
 * Judges the API server's answer to a dry-run pod create. `expected` is the credspec contents an
 * admitted pod must carry inlined.
 */
export function judgePodCreate(faultCase: FaultCase, status: number, text: string, expected: unknown): FaultAnswer {
  let body: { message?: string; code?: number; spec?: Pod["spec"] } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return {
      outcome: status >= 500 ? "apiserver" : "other",
      ...(status < 500 ? { wrong: `HTTP ${status}, not JSON` } : {}),
    };
  }
  if (status === 201) {
    if (!faultCase.admissible) return { outcome: "admitted", wrong: "admitted" };
    const inlined = body.spec?.containers?.[0]?.securityContext?.windowsOptions?.gmsaCredentialSpec;
    const same = inlined !== undefined && JSON.stringify(JSON.parse(inlined)) === JSON.stringify(expected);
    return { outcome: "admitted", ...(same ? {} : { wrong: "admitted without the inlined credspec" }) };
  }
  const message = body.message ?? "";
  if (WEBHOOK_DENIAL.test(message)) return judgeDenial(faultCase, body.code ?? status);
  // The API server could not call a function: it crashed, hung past the webhook timeout or answered no review.
  if (message.includes("failed calling webhook"))
    return { outcome: "other", wrong: `not answered: ${message.slice(0, 200)}` };
  return {
    outcome: status >= 500 || status === 429 ? "apiserver" : "other",
    ...(status >= 500 || status === 429 ? {} : { wrong: `HTTP ${status}: ${message.slice(0, 200)}` }),
  };
}

/** Judges a function's answer to a review sent straight to it. */
export function judgeDirect(
  faultCase: FaultCase,
  fn: "expand" | "authorize",
  status: number,
  text: string,
): FaultAnswer {
  if (status !== 200) return { outcome: "other", wrong: `HTTP ${status}: ${text.slice(0, 200)}` };
  const { response } = JSON.parse(text) as AdmissionReviewResponse;
  if (!response.allowed) return judgeDenial(faultCase, response.status?.code);
  if (!faultCase.admissible) return { outcome: "admitted", wrong: "allowed" };
  return {
    outcome: "admitted",
    ...(fn === "expand" && response.patch === undefined ? { wrong: "allowed without a patch" } : {}),
  };
}
