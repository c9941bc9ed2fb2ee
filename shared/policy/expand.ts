import fastJsonPatch from "fast-json-patch";
import { AdmissionError, createRefusal } from "../errors.ts";
import type { Decision, Pod, WindowsOptions } from "../admission/review.ts";
import { checkNames, decide, findDuplicateKey, otherKindWarning } from "./checks.ts";
import type { LoadedFacts, LoadPlan, PolicySettings, ReviewFacts } from "./facts.ts";
import {
  findNewEphemeralContainers,
  hasGmsaSettings,
  readPodGmsa,
  toReference,
  type AnnotatedPlace,
  type OptionsPlace,
} from "./pod-gmsa.ts";

/** The API server's limit on `gmsaCredentialSpec` (validation.go: maxGMSACredentialSpecLength). */
export const MAX_CREDSPEC_CONTENTS_BYTES = 64 * 1024;

/** At most this many characters inlined into one pod, summed over places: the API server's 3 MiB request limit. */
export const MAX_INLINED_CONTENTS_PER_POD = 3 * 1024 * 1024;

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const LETTERS_AND_DIGITS = `${LETTERS}0123456789`;

/** NetBIOS names are at most 15 characters. */
export const HOSTNAME_LENGTH = 15;

/** A random NetBIOS-safe hostname from 15 `bytes`: a letter, then lowercase letters and digits (never all digits). */
export function createRandomHostname(bytes: Uint8Array): string {
  let name = LETTERS[(bytes[0] ?? 0) % LETTERS.length] ?? "a";
  for (let i = 1; i < HOSTNAME_LENGTH; i++)
    name += LETTERS_AND_DIGITS[(bytes[i] ?? 0) % LETTERS_AND_DIGITS.length] ?? "a";
  return name;
}

/** What expand needs loaded, and what it already knows: a decision made without facts, or the pod's places to fill. */
interface ExpandPlan {
  load: LoadPlan;
  decided?: Decision;
  pod: Pod;
  fills: Fill[];
}

/**
 * Plans the mutating webhook's decision: only a CREATE and the new ephemeral containers of `pods/ephemeralcontainers`
 * change. Invalid names, conflicting alpha annotations and too many credspecs are refused before any API call (422).
 */
export function planExpand(review: ReviewFacts, settings: Pick<PolicySettings, "randomHostname">): ExpandPlan {
  if (review.object === "other") return decided({ allowed: true, warnings: [otherKindWarning(review)] });
  if (review.object === "invalid") return decided({ allowed: false, errors: [review.error] });
  if (review.operation === "DELETE" || review.operation === "CONNECT") return decided({ allowed: true });
  const isNew = findNewEphemeralContainers(review);
  if (review.operation !== "CREATE" && isNew === undefined) return decided({ allowed: true });

  const gmsa = readPodGmsa(review.pod);
  // Ephemeral containers are added through the subresource alone: the annotations were judged with the pod.
  const places = isNew ? gmsa.places.filter(isNew) : gmsa.places;
  const pairs = isNew ? [] : gmsa.pairs;
  const refs = isNew ? places.filter((p) => hasGmsaSettings(p.options)).map(toReference) : gmsa.refs;
  const errors = [...checkNames(refs), ...(isNew ? [] : gmsa.annotationErrors)];
  if (errors.length > 0) return decided({ allowed: false, errors });

  const hostname = settings.randomHostname && !isNew && gmsa.refs.length > 0 && !review.pod.spec?.hostname;
  const fills: Fill[] = [];
  for (const place of places) {
    const name = place.options?.gmsaCredentialSpecName;
    if (name !== undefined && place.options?.gmsaCredentialSpec === undefined)
      fills.push({ name, label: place.label, place });
  }
  for (const { annotation, place } of pairs) {
    if (annotation.name !== undefined)
      fills.push({ name: annotation.name, label: `annotation "${annotation.nameKey}"`, place, annotation });
  }
  const credspecs = new Set(fills.map((fill) => fill.name));
  return { load: { credspecs, access: [], randomBytes: hostname ? HOSTNAME_LENGTH : 0 }, pod: review.pod, fills };
}

/** One place expand fills: a field naming a credspec without contents, or an alpha annotation pair naming one. */
interface Fill {
  name: string;
  label: string;
  place: OptionsPlace;
  annotation?: AnnotatedPlace["annotation"];
}

/**
 * Inlines `JSON.stringify(credspec)` wherever a name has no contents (never over contents: authorize judges those),
 * fills alpha annotations and their fields, and sets the random hostname the plan asked bytes for.
 */
export function decideExpand(plan: ExpandPlan, facts: LoadedFacts): Decision {
  if (plan.decided !== undefined) return plan.decided;
  const { fills } = plan;
  const texts = new Map<string, string>();
  const errors: AdmissionError[] = [];
  for (const name of new Set(fills.map((fill) => fill.name))) {
    const place = fills.flatMap((fill) => (fill.name === name ? [fill.label] : [])).join(", ");
    const fact = facts.credspecs.get(name);
    // A name the plan did not load is our bug: fail closed rather than allow the pod unexpanded.
    if (fact?.ok !== true) {
      errors.push(
        (
          fact?.error ?? new AdmissionError(`facts for credspec "${name}" were not loaded`, { code: "ERR_INTERNAL" })
        ).withContext(place, name),
      );
      continue;
    }
    const text = JSON.stringify(fact.value);
    const bytes = new TextEncoder().encode(text).length;
    if (bytes <= MAX_CREDSPEC_CONTENTS_BYTES) texts.set(name, text);
    else {
      const message = `${place}: credspec "${name}" is ${bytes} bytes as JSON; the API server accepts at most ${MAX_CREDSPEC_CONTENTS_BYTES}`;
      errors.push(createRefusal("ERR_CONTENTS_TOO_LARGE", message, place, name));
    }
  }
  // Each place gets its own copy in the patch: bound the sum, not only each credspec.
  if (fills.reduce((sum, fill) => sum + (texts.get(fill.name)?.length ?? 0), 0) > MAX_INLINED_CONTENTS_PER_POD) {
    const message = `inlining the credspecs the pod names would add more than ${MAX_INLINED_CONTENTS_PER_POD} characters to it; the API server cannot store such a pod`;
    errors.push(createRefusal("ERR_CONTENTS_TOO_LARGE", message, "pod"));
  }
  if (errors.length > 0) return decide(errors);

  // The pod came from JSON, so a JSON round trip copies it exactly.
  const out = JSON.parse(JSON.stringify(plan.pod)) as Pod;
  for (const { name, place, annotation } of fills) {
    const text = texts.get(name) ?? "";
    const options = windowsOptionsAt(out, place.path);
    if (annotation === undefined) {
      options.gmsaCredentialSpec = text;
      continue;
    }
    ((out.metadata ??= {}).annotations ??= {})[annotation.contentsKey] ??= text;
    options.gmsaCredentialSpecName ??= name;
    // Contents that repeat a key are never copied into the field: authorize refuses them on the annotation.
    const given =
      annotation.contents !== undefined && findDuplicateKey(annotation.contents).kind === "unique"
        ? annotation.contents
        : undefined;
    options.gmsaCredentialSpec ??= given ?? text;
  }
  if (plan.load.randomBytes > 0) (out.spec ??= {}).hostname = createRandomHostname(facts.randomBytes);
  // Computed by comparison, so missing `securityContext` / `windowsOptions` parents become `add` operations of whole
  // objects and the patch applies to the pod the API server holds.
  return { allowed: true, patch: fastJsonPatch.compare(plan.pod, out) };
}

function decided(decision: Decision): ExpandPlan {
  return { load: { credspecs: new Set(), access: [], randomBytes: 0 }, decided: decision, pod: {}, fills: [] };
}

/** Creates missing parents: the pod's schema admits only objects or nothing along the path. */
function windowsOptionsAt(pod: Pod, path: string[]): WindowsOptions {
  let node = pod as Record<string, unknown>;
  for (const key of path) node = (node[key] ??= {}) as Record<string, unknown>;
  return node;
}
