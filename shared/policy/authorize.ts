/**
 * authorize's rules: what to load for a review and the decision once the facts are in (access, existing credspecs,
 * equal contents); exec and attach under REVIEW_REQUESTING_USER; ENFORCEMENT and the audit annotations.
 */
import type { Decision } from "../admission/review.ts";
import { AdmissionError, asAdmissionError, createRefusal, pickStatus } from "../errors.ts";
import {
  checkContentsShape,
  checkNames,
  decide,
  distinctNames,
  listRunAsUserWarnings,
  otherKindWarning,
  truncate,
} from "./checks.ts";
import type {
  AccessFacts,
  EnforcementMode,
  LoadedFacts,
  LoadPlan,
  PodChange,
  PodConnect,
  PolicySettings,
  ReviewFacts,
  Subject,
} from "./facts.ts";
import {
  findNewEphemeralContainers,
  hasGmsaSettings,
  listDifferingKeys,
  readPodGmsa,
  toReference,
  type GmsaReference,
  type OptionsPlace,
  type PodGmsa,
} from "./pod-gmsa.ts";
import { checkUpdate } from "./update.ts";

/** What authorize judges once the facts are in. */
interface Judgement {
  refs: GmsaReference[];
  /** The distinct credspecs judged, each loaded once. */
  names: Set<string>;
  /** Refusals known without any fact; nothing is loaded then. */
  errors: AdmissionError[];
  /** Whose `use` of every name is reviewed. With the service account, the credspecs and the contents are judged too. */
  subjects: Subject[];
  warnings: string[];
}

/** What authorize needs loaded, and what it already knows. */
interface AuthorizePlan extends Judgement {
  load: LoadPlan;
  enforcement: PolicySettings["enforcement"];
  /** A decision made without the policy's rules for pods (other kinds, DELETE, CONNECTs not reviewed): no audit annotations. */
  decided?: Decision;
}

/**
 * Plans the validating webhook's decision: UPDATEs may not touch GMSA settings; CREATEs and new ephemeral containers need
 * an existing credspec, equal inlined contents, and `use` by the service account (and per REVIEW_REQUESTING_USER the requester);
 * per REVIEW_REQUESTING_USER, an exec or attach needs the requester's `use` of the pod's credspecs (judgeConnect).
 */
export function planAuthorize(
  review: ReviewFacts,
  settings: Pick<PolicySettings, "requestingUser" | "enforcement">,
): AuthorizePlan {
  const plan = (judgement: Partial<Judgement>, decided?: Decision): AuthorizePlan => {
    const full: Judgement = { refs: [], names: new Set(), errors: [], subjects: [], warnings: [], ...judgement };
    const hasServiceAccount = full.subjects.some((subject) => "serviceAccount" in subject);
    const load: LoadPlan = {
      credspecs: hasServiceAccount && full.errors.length === 0 ? full.names : new Set(),
      access: full.errors.length > 0 ? [] : full.subjects.map((subject) => ({ subject, names: full.names })),
      randomBytes: 0,
    };
    return { ...full, load, enforcement: settings.enforcement, ...(decided === undefined ? {} : { decided }) };
  };
  if (review.object === "other") return plan({}, { allowed: true, warnings: [otherKindWarning(review)] });
  if (review.object === "invalid") return plan({ errors: [review.error] });
  if (review.operation === "DELETE") return plan({}, { allowed: true });
  if (review.operation === "CONNECT" && !reviewsConnect(review, settings.requestingUser))
    return plan({}, { allowed: true });
  try {
    return plan(
      review.operation === "CONNECT" ? judgeConnect(review) : judgePodChange(review, settings.requestingUser),
    );
  } catch (error) {
    return plan({ errors: [asAdmissionError(error)] });
  }
}

function judgePodChange(review: PodChange, mode: PolicySettings["requestingUser"]): Partial<Judgement> {
  const now = readPodGmsa(review.pod);
  const isNew = findNewEphemeralContainers(review);
  if (review.operation === "UPDATE") {
    const changes = checkUpdate(readPodGmsa(review.oldPod), now, isNew);
    if (changes.length > 0) return { errors: changes };
    // Settings unchanged: the service account was judged at create. With `always`, the requester must `use` them.
    if (isNew === undefined) {
      const names = distinctNames(now.refs);
      return mode !== "always" || names.size === 0 ? { names } : withRequester({ refs: now.refs, names }, review);
    }
  }
  const refs = isNew ? newContainerReferences(now, isNew) : now.refs;
  const names = distinctNames(refs);
  const errors = [...checkNames(refs), ...(isNew ? [] : now.annotationErrors), ...checkContentsShape(refs)];
  if (errors.length > 0) return { errors };
  const warnings = listRunAsUserWarnings(now.places);
  if (names.size === 0) return { warnings };
  const judgement = {
    refs,
    names,
    warnings,
    subjects: [{ namespace: review.namespace, serviceAccount: review.pod.spec?.serviceAccountName || "default" }],
  };
  return mode === "always" || (mode === "ephemeral" && isNew) ? withRequester(judgement, review) : judgement;
}

/** Adds the requester's review. The API server always sends the requester: a review without one is malformed (400). */
function withRequester(judgement: Partial<Judgement>, { requester, namespace }: PodChange): Partial<Judgement> {
  if (requester === undefined)
    return {
      ...judgement,
      errors: [new AdmissionError("request.userInfo.username is missing", { code: "ERR_INVALID_REVIEW" })],
    };
  return { ...judgement, subjects: [...(judgement.subjects ?? []), { namespace, user: requester }] };
}

/** New ephemeral containers without GMSA settings run under the pod's (kubelet DetermineEffectiveSecurityContext). */
function newContainerReferences({ places }: PodGmsa, isNew: (place: OptionsPlace) => boolean): GmsaReference[] {
  const inherited = places.find((place) => place.scope === "pod")?.options;
  const refs: GmsaReference[] = [];
  for (const place of places.filter(isNew)) {
    if (hasGmsaSettings(place.options)) refs.push(toReference(place));
    else if (hasGmsaSettings(inherited)) {
      refs.push({
        label: `${place.label} (pod-level GMSA)`,
        name: inherited?.gmsaCredentialSpecName,
        contents: inherited?.gmsaCredentialSpec,
      });
    }
  }
  return refs;
}

/** Judges the planned references against the loaded facts, then applies ENFORCEMENT and the audit annotations. */
export function decideAuthorize(plan: AuthorizePlan, facts: LoadedFacts): Decision {
  if (plan.decided !== undefined) return plan.decided;
  let decision: Decision;
  try {
    decision = decide(plan.errors.length > 0 ? plan.errors : judgeReferences(plan, facts), plan.warnings);
  } catch (error) {
    // Our own bug is judged like a denial, so warn mode never blocks it either.
    decision = { allowed: false, errors: [asAdmissionError(error)] };
  }
  return applyEnforcement(decision, plan.names, plan.enforcement);
}

function judgeReferences({ refs, names, subjects }: Judgement, facts: LoadedFacts): AdmissionError[] {
  const errors: AdmissionError[] = [];
  for (const name of names) {
    const labels = refs.filter((ref) => ref.name === name).map((ref) => ref.label);
    const denials = subjects.flatMap((subject, i) => checkAccess(facts.access[i], name, labels, subject));
    errors.push(...denials);
    if (!subjects.some((subject) => "serviceAccount" in subject)) continue;
    const credspec = facts.credspecs.get(name);
    if (credspec === undefined) throw new Error(`credspec "${name}" was not loaded`);
    if (!credspec.ok) {
      errors.push(credspec.error.withContext(labels.join(", "), name));
      continue;
    }
    // Contents are compared only for a credspec the service account (and, when reviewed, the requester) may
    // use: the differing keys of any other would let a pod author confirm guessed values one by one.
    if (denials.length > 0) continue;
    for (const ref of refs) {
      if (ref.name !== name || ref.contents === undefined) continue;
      const differing = listDifferingKeys(ref.contents, credspec.value);
      if (differing?.length === 0) continue;
      const keys = differing === undefined ? "" : ` (differing keys: ${differing.join(", ")})`;
      const message = `${ref.label}: GMSA credspec contents differ from GMSACredentialSpec "${name}"${keys}`;
      errors.push(createRefusal("ERR_CONTENTS_MISMATCH", message, ref.label, name));
    }
  }
  return errors;
}

/** `subject`'s refusals for credspec `name`, named at `labels` (empty: allowed). */
function checkAccess(
  access: AccessFacts | undefined,
  name: string,
  labels: string[],
  subject: Subject,
): AdmissionError[] {
  const who =
    "user" in subject
      ? `user ${JSON.stringify(truncate(subject.user.username, 253))}`
      : `service account "${subject.serviceAccount}" in namespace "${subject.namespace}"`;
  const fact = access?.get(name);
  if (fact === undefined) throw new Error(`access to credspec "${name}" was not loaded for ${who}`);
  const place = labels.join(", ");
  if (!fact.ok) return [fact.error.withContext(place, name)];
  if (fact.value.allowed) return [];
  const why = fact.value.reason === "" ? "" : ` (${truncate(fact.value.reason, 160)})`;
  return [
    createRefusal(
      "ERR_CREDSPEC_NOT_ALLOWED",
      `${place}: ${who} is not allowed to use GMSACredentialSpec "${name}"${why}`,
      place,
      name,
    ),
  ];
}

// exec and attach under REVIEW_REQUESTING_USER: both run code in a running pod's containers, as the pod's gMSA, as an
// ephemeral container does, so the user who asks must be allowed to `use` every credspec the pod names
// (docs/security.md, The requesting user). The request carries PodExecOptions or PodAttachOptions, not the pod:
// authorize reads the pod first (planPodRead) and judges it (judgeConnect).

/** The CONNECT subresources that run code in a container; `portforward` and `proxy` only reach its ports. */
export const CODE_RUNNING_SUBRESOURCES: readonly string[] = ["exec", "attach"];

/** Whether authorize reviews exec and attach, reading the pod each goes into: REVIEW_REQUESTING_USER `ephemeral` or `always`. */
export function reviewsCodeRunning(mode: PolicySettings["requestingUser"]): boolean {
  return mode !== "off";
}

/** Whether the requester of this CONNECT is reviewed: exec or attach, in a mode that {@link reviewsCodeRunning}. */
export function reviewsConnect(review: PodConnect, mode: PolicySettings["requestingUser"]): boolean {
  return reviewsCodeRunning(mode) && CODE_RUNNING_SUBRESOURCES.includes(review.subResource ?? "");
}

/** The pod to read before authorize can plan this review, if any: the target of a reviewed exec or attach. */
export function planPodRead(
  review: ReviewFacts,
  settings: Pick<PolicySettings, "requestingUser">,
): { namespace: string; name: string } | undefined {
  if (review.object !== "pod" || review.operation !== "CONNECT" || !reviewsConnect(review, settings.requestingUser))
    return undefined;
  return { namespace: review.namespace, name: review.name };
}

/**
 * What authorize judges for a reviewed exec or attach: the requester's `use` of each credspec the pod names, at any
 * level (with a shared process namespace one container reaches another's processes). A pod that could not be read
 * is a refusal (fail closed). @throws Error when the pod was not loaded (our bug: a 500).
 */
export function judgeConnect(review: PodConnect): {
  refs?: GmsaReference[];
  names?: Set<string>;
  errors?: AdmissionError[];
  subjects?: Subject[];
} {
  if (review.pod === undefined)
    throw new Error(`pod "${review.namespace}/${review.name}" was not loaded for ${review.subResource ?? "CONNECT"}`);
  if (!review.pod.ok) return { errors: [review.pod.error] };
  const via = `pods/${review.subResource ?? ""}`;
  const refs = readPodGmsa(review.pod.value).refs.map((ref) => ({ ...ref, label: `${via} into ${ref.label}` }));
  const names = distinctNames(refs);
  if (names.size === 0) return {};
  const invalid = checkNames(refs);
  if (invalid.length > 0) return { errors: invalid };
  if (review.requester === undefined)
    return { errors: [new AdmissionError("request.userInfo.username is missing", { code: "ERR_INVALID_REVIEW" })] };
  return { refs, names, subjects: [{ namespace: review.namespace, user: review.requester }] };
}

/** Longest audit annotation value we send: they are kept in every audit event of the request. */
export const MAX_AUDIT_VALUE_LENGTH = 1024;
const cap = (text: string) => truncate(text, MAX_AUDIT_VALUE_LENGTH - 1);

/**
 * Adds the audit annotations (`decision`: allowed, denied or would-deny; `credspecs`: the sorted names, never contents;
 * a denial's `codes`; `would-deny`: status, codes and places) and, with `warn`, allows a denial with a warning. Warn
 * mode never blocks, our own failures (500) included: an enforcing webhook runs beside it.
 */
export function applyEnforcement(outcome: Decision, credSpecNames: Iterable<string>, mode: EnforcementMode): Decision {
  const names = new Set(credSpecNames);
  if (!outcome.allowed)
    for (const error of outcome.errors)
      if (error.where?.credSpecName !== undefined) names.add(error.where.credSpecName);
  const annotations: Record<string, string> = names.size === 0 ? {} : { credspecs: cap([...names].sort().join(",")) };
  if (outcome.allowed) return { ...outcome, auditAnnotations: { decision: "allowed", ...annotations } };
  annotations.codes = cap([...new Set(outcome.errors.map((e) => e.code))].join(","));
  if (mode === "deny") return { ...outcome, auditAnnotations: { decision: "denied", ...annotations } };
  const summary = summarize(outcome.errors);
  return {
    allowed: true,
    warnings: [`ENFORCEMENT=warn: gmsa-webhooks would deny this request: ${summary}`, ...(outcome.warnings ?? [])],
    auditAnnotations: { decision: "would-deny", ...annotations, "would-deny": cap(summary) },
  };
}

/** `403 ERR_CREDSPEC_NOT_ALLOWED at container "app" (credspec "webapp1"); …`: no messages, a 500's may hold internals. */
function summarize(errors: AdmissionError[]): string {
  const parts = errors.map((e) => {
    const place = e.where === undefined ? "" : ` at ${e.where.place}`;
    const credspec = e.where?.credSpecName === undefined ? "" : ` (credspec "${e.where.credSpecName}")`;
    return `${e.code}${place}${credspec}`;
  });
  return `${pickStatus(errors)} ${[...new Set(parts)].join("; ")}`;
}
