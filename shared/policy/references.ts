import { AnnotationConflictError, at, UnknownContainerError, type AdmissionError } from "../errors.ts";
import { listAnnotationReferences, type AnnotationReference } from "./annotations.ts";
import { sameJson } from "./contents.ts";
import type { Pod } from "./pod.ts";
import { hasGmsaSettings, listOptionsPlaces, type OptionsPlace } from "./walk.ts";

/** A GMSA name and/or contents at one place, from a field or an alpha annotation. */
export interface GmsaReference {
  /** For denials: `pod`, `container "web"`, `annotation "pod.alpha.windows.kubernetes.io/..."`. */
  label: string;
  name: string | undefined;
  contents: string | undefined;
}

/** An alpha annotation pair together with the field place it speaks for. */
export interface AnnotatedPlace {
  annotation: AnnotationReference;
  place: OptionsPlace;
}

/** Everything the GMSA rules read from one pod, from one walk of it. */
export interface PodGmsa {
  pod: Pod;
  /** Every place, pod first (see {@link listOptionsPlaces}). */
  places: OptionsPlace[];
  /** Every reference: places with GMSA settings (pod, containers, init, ephemeral), then the alpha annotations. */
  refs: GmsaReference[];
  /** Each alpha annotation pair with its field place, when it names a place the pod has and agrees with it. */
  pairs: AnnotatedPlace[];
  /** Annotations naming a container the pod does not have, or contradicting their field (422). */
  annotationErrors: AdmissionError[];
}

/** Walks `pod` once for every GMSA rule. */
export function readPodGmsa(pod: Pod): PodGmsa {
  const places = listOptionsPlaces(pod);
  const annotations = listAnnotationReferences(pod);
  const refs = places.filter((place) => hasGmsaSettings(place.options)).map(toReference);
  for (const ann of annotations) {
    refs.push({ label: `annotation "${ann.name === undefined ? ann.contentsKey : ann.nameKey}"`, name: ann.name, contents: ann.contents });
  }
  return { pod, places, refs, ...matchAnnotationsToPlaces(annotations, places) };
}

/** The reference a field place holds. */
export function toReference(place: OptionsPlace): GmsaReference {
  return { label: place.label, name: place.options?.gmsaCredentialSpecName, contents: place.options?.gmsaCredentialSpec };
}

/** Pairs each annotation with its field place; one naming an absent container or contradicting its field is an error (422). */
function matchAnnotationsToPlaces(annotations: AnnotationReference[], places: OptionsPlace[]): Pick<PodGmsa, "pairs" | "annotationErrors"> {
  const byName = new Map<string | undefined, OptionsPlace>();
  for (const place of places) {
    const key = place.scope === "pod" ? undefined : place.containerName;
    if (!byName.has(key)) byName.set(key, place);
  }
  const pairs: AnnotatedPlace[] = [];
  const errors: AdmissionError[] = [];
  for (const annotation of annotations) {
    const place = byName.get(annotation.containerName);
    const key = annotation.name === undefined ? annotation.contentsKey : annotation.nameKey;
    if (place === undefined) {
      const label = `annotation "${key}"`;
      errors.push(new UnknownContainerError(`${label} names container "${annotation.containerName}", which the pod does not have`, at(label)));
      continue;
    }
    const fieldName = place.options?.gmsaCredentialSpecName;
    if (annotation.name !== undefined && fieldName !== undefined && annotation.name !== fieldName) {
      const message = `annotation "${annotation.nameKey}" names credspec "${annotation.name}" but ${place.label} names "${fieldName}"`;
      errors.push(new AnnotationConflictError(message, at(place.label, annotation.name)));
      continue;
    }
    const fieldContents = place.options?.gmsaCredentialSpec;
    if (annotation.contents !== undefined && fieldContents !== undefined && !sameJson(annotation.contents, fieldContents)) {
      const message = `annotation "${annotation.contentsKey}" and ${place.label} carry different credspec contents`;
      errors.push(new AnnotationConflictError(message, at(place.label, annotation.name)));
      continue;
    }
    pairs.push({ annotation, place });
  }
  return { pairs, annotationErrors: errors };
}
