import { ContentsTooLargeError, InternalError, type AdmissionError } from "../errors.ts";
import { checkNames, checkReferenceCount, distinctNames } from "./checks.ts";
import { credspecJson } from "./credspec-json.ts";
import { findDuplicateKey } from "./duplicate-keys.ts";
import { errorAtPlaces, type CredSpecFacts } from "./facts.ts";
import type { Pod, WindowsOptions } from "./pod.ts";
import { listReferences, matchAnnotationsToPlaces, toReference, type AnnotatedPlace } from "./references.ts";
import { hasGmsaSettings, listOptionsPlaces, type OptionsPlace } from "./walk.ts";

/** The API server's limit on `gmsaCredentialSpec` (validation.go: maxGMSACredentialSpecLength). */
export const MAX_CREDSPEC_CONTENTS_BYTES = 64 * 1024;

/**
 * At most this many characters of contents are inlined into one pod, counted per place (a credspec named by
 * a thousand containers counts a thousand times): the API server's default request limit is 3 MiB, so a
 * larger patch could never be stored, and building it would cost the webhook memory and time.
 */
export const MAX_INLINED_CONTENTS_PER_POD = 3 * 1024 * 1024;

export interface ExpandOptions {
  /** At most this many distinct credspec names in one pod. */
  maxCredSpecNames: number;
  /** Only these places are expanded (ephemeral containers added through the subresource); default all, plus annotations. */
  targets?: (place: OptionsPlace) => boolean;
}

export interface ExpandPlan {
  /** Credspecs to load, each once. */
  names: Set<string>;
  /** Refusals found without any API call; when non-empty, load nothing. */
  errors: AdmissionError[];
}

/** What one expand needs: the credspecs to load, or the refusals that make loading pointless. */
export function planExpand(pod: Pod, options: ExpandOptions): ExpandPlan {
  const places = targetPlaces(pod, options);
  const annotated = options.targets ? { pairs: [], errors: [] } : matchAnnotationsToPlaces(pod);
  const refs = options.targets ? places.filter((p) => hasGmsaSettings(p.options)).map(toReference) : listReferences(pod);
  const names = new Set<string>();
  for (const place of places) {
    const name = place.options?.gmsaCredentialSpecName;
    if (name !== undefined && place.options?.gmsaCredentialSpec === undefined) names.add(name);
  }
  for (const { annotation } of annotated.pairs) if (annotation.name !== undefined) names.add(annotation.name);
  const errors = [...checkNames(refs), ...annotated.errors, ...checkReferenceCount(distinctNames(refs), options.maxCredSpecNames)];
  return errors.length > 0 ? { names: new Set(), errors } : { names, errors };
}

export interface ExpandResult {
  pod: Pod;
  errors: AdmissionError[];
}

/**
 * Inlines `JSON.stringify(credspec)` wherever a name has no contents; never overwrites contents already set
 * (authorize judges those). Alpha annotations get their contents annotation filled and their fields set.
 * `hostname`, when given, is set if the pod has a GMSA reference and no `spec.hostname`.
 */
export function expandPod(pod: Pod, facts: CredSpecFacts, options: ExpandOptions & { hostname?: string }): ExpandResult {
  // The pod came from JSON, so a JSON round trip copies it exactly, and faster than structuredClone
  // (about 30% for a 10-container pod: test/bench/RESULTS.md).
  const out = JSON.parse(JSON.stringify(pod)) as Pod;
  const errors: AdmissionError[] = [];
  const failed = new Map<string, string[]>();
  const tooLarge = new Map<string, string[]>();
  const serialized = new Map<string, { text: string; bytes: number }>();
  let inlinedLength = 0;
  let overLimit = false;

  const contentsFor = (name: string, label: string): string | undefined => {
    const fact = facts.get(name);
    if (fact === undefined || !fact.ok) {
      addLabel(failed, name, label);
      return undefined;
    }
    const json = serialized.get(name) ?? credspecJson(fact.value);
    serialized.set(name, json);
    if (json.bytes > MAX_CREDSPEC_CONTENTS_BYTES) {
      addLabel(tooLarge, name, label);
      return undefined;
    }
    // Each place gets its own copy in the patch: bound the sum, not only each credspec.
    inlinedLength += json.text.length;
    if (inlinedLength <= MAX_INLINED_CONTENTS_PER_POD) return json.text;
    if (!overLimit) {
      overLimit = true;
      errors.push(
        new ContentsTooLargeError(
          `inlining the credspecs the pod names would add more than ${MAX_INLINED_CONTENTS_PER_POD} characters to it; the API server cannot store such a pod`,
          { where: { place: "pod" } },
        ),
      );
    }
    return undefined;
  };

  for (const place of targetPlaces(pod, options)) {
    const name = place.options?.gmsaCredentialSpecName;
    if (name === undefined || place.options?.gmsaCredentialSpec !== undefined) continue;
    const contents = contentsFor(name, place.label);
    if (contents !== undefined) windowsOptionsAt(out, place.path).gmsaCredentialSpec = contents;
  }
  if (!options.targets) expandAnnotations(out, matchAnnotationsToPlaces(pod).pairs, contentsFor);

  for (const [name, labels] of tooLarge) {
    const where = labels.join(", ");
    errors.push(
      new ContentsTooLargeError(
        `${where}: credspec "${name}" is ${serialized.get(name)?.bytes} bytes as JSON; the API server accepts at most ${MAX_CREDSPEC_CONTENTS_BYTES}`,
        { where: { place: where, credSpecName: name } },
      ),
    );
  }
  for (const [name, labels] of failed) {
    const fact = facts.get(name);
    // A name the plan did not load is our bug: fail closed rather than allow the pod unexpanded.
    const error = fact?.ok === false ? fact.error : new InternalError(`facts for credspec "${name}" were not loaded`);
    errors.push(errorAtPlaces(error, labels, name));
  }
  if (options.hostname !== undefined && !out.spec?.hostname && listReferences(pod).length > 0) {
    (out.spec ??= {}).hostname = options.hostname;
  }
  return { pod: out, errors };
}

function expandAnnotations(out: Pod, pairs: AnnotatedPlace[], contentsFor: (name: string, label: string) => string | undefined): void {
  for (const { annotation, place } of pairs) {
    if (annotation.name === undefined) continue;
    const contents = contentsFor(annotation.name, `annotation "${annotation.nameKey}"`);
    if (contents === undefined) continue;
    const annotations = ((out.metadata ??= {}).annotations ??= {});
    annotations[annotation.contentsKey] ??= contents;
    const options = windowsOptionsAt(out, place.path);
    options.gmsaCredentialSpecName ??= annotation.name;
    // Contents that repeat a key are never copied into the field: authorize refuses them on the annotation.
    const given = annotation.contents !== undefined && findDuplicateKey(annotation.contents).kind === "unique" ? annotation.contents : undefined;
    options.gmsaCredentialSpec ??= given ?? contents;
  }
}

function targetPlaces(pod: Pod, options: ExpandOptions): readonly OptionsPlace[] {
  const places = listOptionsPlaces(pod);
  return options.targets ? places.filter(options.targets) : places;
}

/** Pushed, not spread: thousands of containers naming one credspec must stay linear. */
function addLabel(labelsByName: Map<string, string[]>, name: string, label: string): void {
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
