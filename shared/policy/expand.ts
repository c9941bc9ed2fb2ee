import fastJsonPatch from "fast-json-patch";
import { at, ContentsTooLargeError, InternalError, type AdmissionError } from "../errors.ts";
import { checkNames, checkReferenceCount, distinctNames } from "./checks.ts";
import { findDuplicateKey } from "./contents.ts";
import { errorAtPlaces, NOTHING_TO_LOAD, type LoadedFacts, type LoadPlan } from "./facts.ts";
import type { Pod, WindowsOptions } from "./pod.ts";
import { hasGmsaSettings, isNewEphemeralContainer, readPodGmsa, toReference, type AnnotatedPlace, type OptionsPlace } from "./references.ts";
import { decide, isEphemeralContainersUpdate, otherKindWarning, type Decision, type PolicySettings, type ReviewFacts } from "./review.ts";

/** The API server's limit on `gmsaCredentialSpec` (validation.go: maxGMSACredentialSpecLength). */
export const MAX_CREDSPEC_CONTENTS_BYTES = 64 * 1024;

/**
 * At most this many characters of contents are inlined into one pod, counted per place: the API server's default
 * request limit is 3 MiB, so a larger patch could never be stored, and building it would cost memory and time.
 */
export const MAX_INLINED_CONTENTS_PER_POD = 3 * 1024 * 1024;

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const LETTERS_AND_DIGITS = `${LETTERS}0123456789`;

/** NetBIOS names are at most 15 characters. */
export const HOSTNAME_LENGTH = 15;

/** A random NetBIOS-safe hostname from 15 `bytes`: a letter, then lowercase letters and digits (never all digits). */
export function createRandomHostname(bytes: Uint8Array): string {
  if (bytes.length < HOSTNAME_LENGTH) throw new RangeError(`need ${HOSTNAME_LENGTH} random bytes, got ${bytes.length}`);
  let name = LETTERS[(bytes[0] ?? 0) % LETTERS.length] ?? "a";
  for (let i = 1; i < HOSTNAME_LENGTH; i++) name += LETTERS_AND_DIGITS[(bytes[i] ?? 0) % LETTERS_AND_DIGITS.length] ?? "a";
  return name;
}

/** What expand needs loaded, and what it already knows. */
export interface ExpandPlan {
  load: LoadPlan;
  /** Set when the decision needs nothing loaded; then there is nothing to fill. */
  decided?: Decision;
  pod: Pod;
  places: OptionsPlace[];
  pairs: AnnotatedPlace[];
}

/**
 * Plans the mutating webhook's decision: only a CREATE and the new ephemeral containers of an UPDATE of
 * `pods/ephemeralcontainers` change. Names that are not DNS-1123 subdomains, alpha annotations that conflict with
 * their fields or name absent containers, and too many credspecs are refused here, before any API call (422).
 */
export function planExpand(review: ReviewFacts, settings: Pick<PolicySettings, "randomHostname">): ExpandPlan {
  if (review.object === "other") return decided({ allowed: true, warnings: [otherKindWarning(review)] });
  if (review.object === "invalid") return decided({ allowed: false, errors: [review.error] });
  if (review.operation === "DELETE" || review.operation === "CONNECT") return decided({ allowed: true });
  if (review.operation !== "CREATE" && !isEphemeralContainersUpdate(review)) return decided({ allowed: true });

  const gmsa = readPodGmsa(review.pod);
  const isNew = isEphemeralContainersUpdate(review) ? isNewEphemeralContainer(review.oldPod) : undefined;
  // Ephemeral containers are added through the subresource alone: the annotations were judged with the pod.
  const places = isNew ? gmsa.places.filter(isNew) : gmsa.places;
  const pairs = isNew ? [] : gmsa.pairs;
  const refs = isNew ? places.filter((p) => hasGmsaSettings(p.options)).map(toReference) : gmsa.refs;
  const errors = [...checkNames(refs), ...(isNew ? [] : gmsa.annotationErrors), ...checkReferenceCount(distinctNames(refs))];
  if (errors.length > 0) return decided({ allowed: false, errors });

  const names = new Set<string>();
  for (const place of places) {
    const name = place.options?.gmsaCredentialSpecName;
    if (name !== undefined && place.options?.gmsaCredentialSpec === undefined) names.add(name);
  }
  for (const { annotation } of pairs) if (annotation.name !== undefined) names.add(annotation.name);
  const hostname = settings.randomHostname && !isNew && gmsa.refs.length > 0 && !review.pod.spec?.hostname;
  return { load: { credspecs: names, access: [], randomBytes: hostname ? HOSTNAME_LENGTH : 0 }, pod: review.pod, places, pairs };
}

/**
 * Inlines `JSON.stringify(credspec)` wherever a name has no contents, never over contents already set (authorize
 * judges those); fills alpha annotations and their fields; sets the random hostname the plan asked bytes for.
 */
export function decideExpand(plan: ExpandPlan, facts: LoadedFacts): Decision {
  if (plan.decided !== undefined) return plan.decided;
  // The pod came from JSON, so a JSON round trip copies it exactly.
  const out = JSON.parse(JSON.stringify(plan.pod)) as Pod;
  const contents = createContentsSource(facts);
  for (const place of plan.places) {
    const name = place.options?.gmsaCredentialSpecName;
    if (name === undefined || place.options?.gmsaCredentialSpec !== undefined) continue;
    const text = contents.get(name, place.label);
    if (text !== undefined) windowsOptionsAt(out, place.path).gmsaCredentialSpec = text;
  }
  for (const { annotation, place } of plan.pairs) {
    if (annotation.name === undefined) continue;
    const text = contents.get(annotation.name, `annotation "${annotation.nameKey}"`);
    if (text === undefined) continue;
    const annotations = ((out.metadata ??= {}).annotations ??= {});
    annotations[annotation.contentsKey] ??= text;
    const options = windowsOptionsAt(out, place.path);
    options.gmsaCredentialSpecName ??= annotation.name;
    // Contents that repeat a key are never copied into the field: authorize refuses them on the annotation.
    const given = annotation.contents !== undefined && findDuplicateKey(annotation.contents).kind === "unique" ? annotation.contents : undefined;
    options.gmsaCredentialSpec ??= given ?? text;
  }
  const errors = contents.errors();
  if (errors.length > 0) return decide(errors);
  if (plan.load.randomBytes > 0) (out.spec ??= {}).hostname = createRandomHostname(facts.randomBytes);
  // Computed by comparison, so missing `securityContext` / `windowsOptions` parents become `add` operations of whole
  // objects and the patch applies to the pod the API server holds.
  return { allowed: true, patch: fastJsonPatch.compare(plan.pod, out) };
}

function decided(decision: Decision): ExpandPlan {
  return { load: NOTHING_TO_LOAD, decided: decision, pod: {}, places: [], pairs: [] };
}

/** Hands out each credspec's JSON for a place, and gathers what could not be inlined, by credspec, naming the places. */
function createContentsSource(facts: LoadedFacts) {
  const failed = new Map<string, string[]>();
  const tooLarge = new Map<string, string[]>();
  const texts = new Map<string, { text: string; bytes: number }>();
  const errors: AdmissionError[] = [];
  let inlinedLength = 0;
  return {
    get(name: string, label: string): string | undefined {
      const fact = facts.credspecs.get(name);
      if (fact === undefined || !fact.ok) return addLabel(failed, name, label);
      let json = texts.get(name);
      if (json === undefined) {
        const text = JSON.stringify(fact.value);
        json = { text, bytes: new TextEncoder().encode(text).length };
        texts.set(name, json);
      }
      if (json.bytes > MAX_CREDSPEC_CONTENTS_BYTES) return addLabel(tooLarge, name, label);
      // Each place gets its own copy in the patch: bound the sum, not only each credspec.
      inlinedLength += json.text.length;
      if (inlinedLength <= MAX_INLINED_CONTENTS_PER_POD) return json.text;
      if (inlinedLength - json.text.length <= MAX_INLINED_CONTENTS_PER_POD) {
        const message = `inlining the credspecs the pod names would add more than ${MAX_INLINED_CONTENTS_PER_POD} characters to it; the API server cannot store such a pod`;
        errors.push(new ContentsTooLargeError(message, at("pod")));
      }
      return undefined;
    },
    errors(): AdmissionError[] {
      for (const [name, labels] of tooLarge) {
        const where = labels.join(", ");
        const message = `${where}: credspec "${name}" is ${texts.get(name)?.bytes} bytes as JSON; the API server accepts at most ${MAX_CREDSPEC_CONTENTS_BYTES}`;
        errors.push(new ContentsTooLargeError(message, at(where, name)));
      }
      for (const [name, labels] of failed) {
        const fact = facts.credspecs.get(name);
        // A name the plan did not load is our bug: fail closed rather than allow the pod unexpanded.
        errors.push(errorAtPlaces(fact?.ok === false ? fact.error : new InternalError(`facts for credspec "${name}" were not loaded`), labels, name));
      }
      return errors;
    },
  };
}

function addLabel(labelsByName: Map<string, string[]>, name: string, label: string): undefined {
  const labels = labelsByName.get(name);
  if (labels === undefined) labelsByName.set(name, [label]);
  else labels.push(label);
}

/** The windowsOptions object at `path` in `pod`, creating missing parents. */
function windowsOptionsAt(pod: Pod, path: string[]): WindowsOptions {
  let node = pod as Record<string, unknown>;
  for (const key of path) {
    const next = node[key];
    if (typeof next === "object" && next !== null) node = next as Record<string, unknown>;
    else node = node[key] = {};
  }
  return node;
}
