import { ContentsMismatchError, CredSpecNotAllowedError, type AdmissionError } from "../errors.ts";
import { checkContentsShape, checkNames, checkReferenceCount, distinctNames, truncate } from "./checks.ts";
import { compareCredSpecContents } from "./contents.ts";
import { errorAtPlaces, type AccessFacts, type CredSpecFacts } from "./facts.ts";
import type { Pod } from "./pod.ts";
import { listReferences, matchAnnotationsToPlaces, toReference, type GmsaReference } from "./references.ts";
import { hasGmsaSettings, listOptionsPlaces, type OptionsPlace } from "./walk.ts";

export interface AuthorizeOptions {
  /** At most this many distinct credspec names in one pod. */
  maxCredSpecNames: number;
  /** Only these places are judged (ephemeral containers added through the subresource); default all, plus annotations. */
  targets?: (place: OptionsPlace) => boolean;
}

export interface AuthorizePlan {
  /** References judged, for the decision step. */
  refs: GmsaReference[];
  /** Credspecs to load and to review access for, each once. */
  names: Set<string>;
  /** Refusals found without any API call; when non-empty, load nothing. */
  errors: AdmissionError[];
}

/** What one authorize needs: the credspecs to load and review, or the refusals that make loading pointless. */
export function planAuthorize(pod: Pod, options: AuthorizeOptions): AuthorizePlan {
  const refs = options.targets
    ? listOptionsPlaces(pod).filter((p) => options.targets?.(p) === true && hasGmsaSettings(p.options)).map(toReference)
    : listReferences(pod);
  const names = distinctNames(refs);
  const errors = [
    ...checkNames(refs),
    ...(options.targets ? [] : matchAnnotationsToPlaces(pod).errors),
    ...checkContentsShape(refs),
    ...checkReferenceCount(names, options.maxCredSpecNames),
  ];
  return errors.length > 0 ? { refs, names: new Set(), errors } : { refs, names, errors };
}

export interface AuthorizeFacts {
  credspecs: CredSpecFacts;
  access: AccessFacts;
  /** The pod's service account as reviewed ("" already turned into "default"). */
  serviceAccount: string;
  namespace: string;
  /** The requesting user's decisions, when REVIEW_REQUESTING_USER asks for them. */
  user?: { username: string; access: AccessFacts };
}

/**
 * Judges the planned references against the loaded facts: every credspec must exist with contents, the service
 * account must be allowed to `use` it, and inlined contents must equal it (compared only once access is granted).
 * Returns every refusal (empty: allowed).
 */
export function decideAuthorize(plan: AuthorizePlan, facts: AuthorizeFacts): AdmissionError[] {
  const errors: AdmissionError[] = [];
  for (const name of plan.names) {
    const labels = plan.refs.filter((ref) => ref.name === name).map((ref) => ref.label);
    const credspec = facts.credspecs.get(name);
    const access = facts.access.get(name);
    if (credspec === undefined || access === undefined) throw new Error(`facts for credspec "${name}" were not loaded`);
    if (!access.ok) errors.push(errorAtPlaces(access.error, labels, name));
    else if (!access.value.allowed) {
      const who = `service account "${facts.serviceAccount}" in namespace "${facts.namespace}"`;
      errors.push(notAllowed(labels, who, name, access.value.reason));
    }
    const userErrors = facts.user === undefined ? [] : checkUserAccess(facts.user, name, labels);
    errors.push(...userErrors);
    if (!credspec.ok) {
      errors.push(errorAtPlaces(credspec.error, labels, name));
      continue;
    }
    // Contents are compared only for a credspec the service account (and, when reviewed, the requesting user) may
    // use: the differing keys of any other would let a pod author confirm guessed values one by one.
    if (!access.ok || !access.value.allowed || userErrors.length > 0) continue;
    for (const ref of plan.refs) {
      if (ref.name !== name || ref.contents === undefined) continue;
      const comparison = compareCredSpecContents(ref.contents, credspec.value);
      if (comparison.kind === "equal") continue;
      const keys = comparison.kind === "different" ? ` (differing keys: ${comparison.differingKeys.join(", ")})` : "";
      errors.push(
        new ContentsMismatchError(`${ref.label}: GMSA credspec contents differ from GMSACredentialSpec "${name}"${keys}`, {
          where: { place: ref.label, credSpecName: name },
        }),
      );
    }
  }
  return errors;
}

/** The requesting user's refusals for credspec `name`, named at `labels` (empty: allowed). */
export function checkUserAccess(user: NonNullable<AuthorizeFacts["user"]>, name: string, labels: string[]): AdmissionError[] {
  const access = user.access.get(name);
  if (access === undefined) throw new Error(`the user's access to credspec "${name}" was not loaded`);
  if (!access.ok) return [errorAtPlaces(access.error, labels, name)];
  return access.value.allowed ? [] : [notAllowed(labels, `user ${JSON.stringify(truncate(user.username, 253))}`, name, access.value.reason)];
}

function notAllowed(labels: string[], who: string, name: string, reason: string): CredSpecNotAllowedError {
  const why = reason === "" ? "" : ` (${truncate(reason, 160)})`;
  return new CredSpecNotAllowedError(`${labels.join(", ")}: ${who} is not allowed to use GMSACredentialSpec "${name}"${why}`, {
    where: { place: labels.join(", "), credSpecName: name },
  });
}
