import { asAdmissionError, at, ContentsMismatchError, CredSpecNotAllowedError, InvalidReviewError, type AdmissionError } from "../errors.ts";
import { checkContentsShape, checkNames, checkReferenceCount, distinctNames, listRunAsUserWarnings, truncate } from "./checks.ts";
import { compareCredSpecContents } from "./contents.ts";
import { applyEnforcement } from "./enforcement.ts";
import { errorAtPlaces, NOTHING_TO_LOAD, type AccessFacts, type LoadedFacts, type LoadPlan, type Requester, type Subject } from "./facts.ts";
import { hasGmsaSettings, isNewEphemeralContainer, readPodGmsa, toReference, type GmsaReference, type OptionsPlace, type PodGmsa } from "./references.ts";
import { decide, isEphemeralContainersUpdate, otherKindWarning, type Decision, type PodChange, type PolicySettings, type ReviewFacts } from "./review.ts";
import { checkUpdate } from "./update.ts";

/** What authorize judges once the facts are in. */
interface Judgement {
  refs: GmsaReference[];
  /** The distinct credspecs judged, each loaded once. */
  names: Set<string>;
  /** Refusals known without any fact; nothing is loaded then. */
  errors: AdmissionError[];
  /** Set when the credspecs, the inlined contents and the service account's `use` are judged. */
  serviceAccount?: Extract<Subject, { serviceAccount: string }>;
  /** Set when the requester's `use` in `namespace` is judged (REVIEW_REQUESTING_USER). */
  user?: Requester;
  namespace: string;
  warnings: string[];
}

/** What authorize needs loaded, and what it already knows. */
export interface AuthorizePlan {
  load: LoadPlan;
  enforcement: PolicySettings["enforcement"];
  /** A decision made without the policy's rules for pods (other kinds, DELETE, CONNECT): no audit annotations. */
  decided?: Decision;
  judgement: Judgement;
}

/**
 * Plans the validating webhook's decision: UPDATEs may not touch GMSA settings; CREATEs and new ephemeral containers
 * need an existing credspec the service account (and, per REVIEW_REQUESTING_USER, the requester) may `use`, with
 * equal inlined contents.
 */
export function planAuthorize(review: ReviewFacts, settings: Pick<PolicySettings, "requestingUser" | "enforcement">): AuthorizePlan {
  const plan = (judgement: Partial<Judgement>): AuthorizePlan => {
    const full: Judgement = { refs: [], names: new Set(), errors: [], warnings: [], namespace: "", ...judgement };
    return { load: full.errors.length > 0 ? NOTHING_TO_LOAD : loadPlanOf(full), enforcement: settings.enforcement, judgement: full };
  };
  if (review.object === "other") return { ...plan({}), decided: { allowed: true, warnings: [otherKindWarning(review)] } };
  if (review.object === "invalid") return plan({ errors: [review.error] });
  if (review.operation === "DELETE" || review.operation === "CONNECT") return { ...plan({}), decided: { allowed: true } };
  try {
    return plan(judgePodChange(review, settings.requestingUser));
  } catch (error) {
    return plan({ errors: [asAdmissionError(error)] });
  }
}

function judgePodChange(review: PodChange, mode: PolicySettings["requestingUser"]): Partial<Judgement> {
  const now = readPodGmsa(review.pod);
  let isNew: ((place: OptionsPlace) => boolean) | undefined;
  if (review.operation === "UPDATE") {
    isNew = isEphemeralContainersUpdate(review) ? isNewEphemeralContainer(review.oldPod) : undefined;
    const changes = checkUpdate(readPodGmsa(review.oldPod), now, isNew);
    if (changes.length > 0) return { errors: changes };
    // Settings unchanged: the service account was judged at create. With `always`, the requester must `use` them.
    if (isNew === undefined) {
      const names = distinctNames(now.refs);
      if (mode !== "always" || names.size === 0) return { names };
      return withRequester({ refs: now.refs, names, namespace: review.namespace }, review.requester);
    }
  }
  const refs = isNew ? newContainerReferences(now, isNew) : now.refs;
  const names = distinctNames(refs);
  const errors = [...checkNames(refs), ...(isNew ? [] : now.annotationErrors), ...checkContentsShape(refs), ...checkReferenceCount(names)];
  if (errors.length > 0) return { errors };
  const warnings = listRunAsUserWarnings(now.places);
  if (names.size === 0) return { warnings };
  const serviceAccount = { namespace: review.namespace, serviceAccount: review.pod.spec?.serviceAccountName || "default" };
  const judgement = { refs, names, warnings, serviceAccount, namespace: review.namespace };
  return mode === "always" || (mode === "ephemeral" && isNew) ? withRequester(judgement, review.requester) : judgement;
}

/** The API server always sends the requester: a review without one is malformed (400). */
function withRequester(judgement: Partial<Judgement>, user: Requester | undefined): Partial<Judgement> {
  if (user === undefined) return { ...judgement, errors: [new InvalidReviewError("request.userInfo.username is missing")] };
  return { ...judgement, user };
}

/**
 * The references of the new ephemeral containers. One without GMSA settings of its own runs under the pod's (kubelet
 * pkg/securitycontext, DetermineEffectiveSecurityContext), so it is judged as naming the pod's.
 */
function newContainerReferences({ places }: PodGmsa, isNew: (place: OptionsPlace) => boolean): GmsaReference[] {
  const inherited = places.find((place) => place.scope === "pod")?.options;
  const refs: GmsaReference[] = [];
  for (const place of places.filter(isNew)) {
    if (hasGmsaSettings(place.options)) refs.push(toReference(place));
    else if (hasGmsaSettings(inherited)) {
      refs.push({ label: `${place.label} (pod-level GMSA)`, name: inherited?.gmsaCredentialSpecName, contents: inherited?.gmsaCredentialSpec });
    }
  }
  return refs;
}

function loadPlanOf({ names, serviceAccount, user, namespace }: Judgement): LoadPlan {
  return {
    credspecs: serviceAccount === undefined ? new Set() : names,
    access: [
      ...(serviceAccount === undefined ? [] : [{ subject: serviceAccount, names }]),
      ...(user === undefined ? [] : [{ subject: { namespace, user }, names }]),
    ],
    randomBytes: 0,
  };
}

/** Judges the planned references against the loaded facts, then applies ENFORCEMENT and the audit annotations. */
export function decideAuthorize(plan: AuthorizePlan, facts: LoadedFacts): Decision {
  if (plan.decided !== undefined) return plan.decided;
  const { judgement } = plan;
  let decision: Decision;
  try {
    decision = decide(judgement.errors.length > 0 ? judgement.errors : judgeReferences(judgement, facts), judgement.warnings);
  } catch (error) {
    // Our own bug is judged like a denial, so warn mode never blocks it either.
    decision = { allowed: false, errors: [asAdmissionError(error)] };
  }
  return applyEnforcement(decision, judgement.names, plan.enforcement);
}

function judgeReferences({ refs, names, serviceAccount, user }: Judgement, facts: LoadedFacts): AdmissionError[] {
  const [accessFacts, userFacts] = serviceAccount === undefined ? [undefined, facts.access[0]] : [facts.access[0], facts.access[1]];
  const errors: AdmissionError[] = [];
  for (const name of names) {
    const labels = refs.filter((ref) => ref.name === name).map((ref) => ref.label);
    const userErrors = user === undefined ? [] : checkAccess(userFacts, name, labels, `user ${JSON.stringify(truncate(user.username, 253))}`);
    if (serviceAccount === undefined) {
      errors.push(...userErrors);
      continue;
    }
    const who = `service account "${serviceAccount.serviceAccount}" in namespace "${serviceAccount.namespace}"`;
    const accessErrors = checkAccess(accessFacts, name, labels, who);
    errors.push(...accessErrors, ...userErrors);
    const credspec = facts.credspecs.get(name);
    if (credspec === undefined) throw new Error(`credspec "${name}" was not loaded`);
    if (!credspec.ok) {
      errors.push(errorAtPlaces(credspec.error, labels, name));
      continue;
    }
    // Contents are compared only for a credspec the service account (and, when reviewed, the requester) may
    // use: the differing keys of any other would let a pod author confirm guessed values one by one.
    if (accessErrors.length > 0 || userErrors.length > 0) continue;
    for (const ref of refs) {
      if (ref.name !== name || ref.contents === undefined) continue;
      const comparison = compareCredSpecContents(ref.contents, credspec.value);
      if (comparison.kind === "equal") continue;
      const keys = comparison.kind === "different" ? ` (differing keys: ${comparison.differingKeys.join(", ")})` : "";
      errors.push(new ContentsMismatchError(`${ref.label}: GMSA credspec contents differ from GMSACredentialSpec "${name}"${keys}`, at(ref.label, name)));
    }
  }
  return errors;
}

/** `who`'s refusals for credspec `name`, named at `labels` (empty: allowed). */
function checkAccess(access: AccessFacts | undefined, name: string, labels: string[], who: string): AdmissionError[] {
  const fact = access?.get(name);
  if (fact === undefined) throw new Error(`access to credspec "${name}" was not loaded for ${who}`);
  if (!fact.ok) return [errorAtPlaces(fact.error, labels, name)];
  if (fact.value.allowed) return [];
  const why = fact.value.reason === "" ? "" : ` (${truncate(fact.value.reason, 160)})`;
  const place = labels.join(", ");
  return [new CredSpecNotAllowedError(`${place}: ${who} is not allowed to use GMSACredentialSpec "${name}"${why}`, at(place, name))];
}
