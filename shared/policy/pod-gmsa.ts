/**
 * A pod's GMSA settings, from one walk of it: every place (pod, containers, init and ephemeral containers), the
 * alpha annotations, the references they make, and how inlined contents compare with a credspec's.
 */
import { parseJson } from "../json.ts";
import { createRefusal, type AdmissionError } from "../errors.ts";
import type { Pod, WindowsOptions } from "../admission/review.ts";
import type { PodChange } from "./facts.ts";

/** The three lists of containers, in the order denials name them, and how a denial names a container of each. */
const CONTAINER_LABELS = {
  containers: "container",
  initContainers: "init container",
  ephemeralContainers: "ephemeral container",
} as const;
type ContainerList = keyof typeof CONTAINER_LABELS;

/**
 * The pod's or a container's `securityContext.windowsOptions`, its label for denials (`pod`, `container "web"`) and
 * JSON path: windows-gmsa's `iterateOverWindowsSecurityOptions`, covering init and ephemeral containers too.
 */
export interface OptionsPlace {
  scope: "pod" | ContainerList;
  /** Absent for the pod. */
  containerName?: string;
  label: string;
  path: string[];
  options: WindowsOptions | undefined;
}

/** Every place of the pod: the pod first, then containers, init containers and ephemeral containers in order. */
function listOptionsPlaces(pod: Pod): OptionsPlace[] {
  const places: OptionsPlace[] = [
    {
      scope: "pod",
      label: "pod",
      path: ["spec", "securityContext", "windowsOptions"],
      options: pod.spec?.securityContext?.windowsOptions,
    },
  ];
  for (const list of Object.keys(CONTAINER_LABELS) as ContainerList[]) {
    (pod.spec?.[list] ?? []).forEach((container, index) => {
      places.push({
        scope: list,
        containerName: container.name,
        label: `${CONTAINER_LABELS[list]} "${container.name}"`,
        path: ["spec", list, String(index), "securityContext", "windowsOptions"],
        options: container.securityContext?.windowsOptions,
      });
    });
  }
  return places;
}

/** True when a place names a credspec or carries contents. */
export function hasGmsaSettings(options: WindowsOptions | undefined): boolean {
  return options?.gmsaCredentialSpecName !== undefined || options?.gmsaCredentialSpec !== undefined;
}

/** For an UPDATE of `pods/ephemeralcontainers` (`kubectl debug`), a test for the containers the old pod lacked. */
export function findNewEphemeralContainers(review: PodChange): ((place: OptionsPlace) => boolean) | undefined {
  if (review.operation !== "UPDATE" || review.subResource !== "ephemeralcontainers") return undefined;
  const existing = new Set((review.oldPod.spec?.ephemeralContainers ?? []).map((c) => c.name));
  return (place) => place.scope === "ephemeralContainers" && !existing.has(place.containerName ?? "");
}

// The legacy alpha annotations of the GMSA KEP: today's kubelet ignores them, expand turns them into fields.
const POD_NAME_ANNOTATION = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name";
const POD_CONTENTS_ANNOTATION = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec";
const CONTAINER_SUFFIX = ".container.alpha.windows.kubernetes.io/";
const NAME_KEY = "gmsa-credential-spec-name";
const CONTENTS_KEY = "gmsa-credential-spec";

/** The alpha annotation keys for the pod (no container) or a container. */
export function annotationKeys(containerName?: string): { nameKey: string; contentsKey: string } {
  if (containerName === undefined) return { nameKey: POD_NAME_ANNOTATION, contentsKey: POD_CONTENTS_ANNOTATION };
  const prefix = `${containerName}${CONTAINER_SUFFIX}`;
  return { nameKey: prefix + NAME_KEY, contentsKey: prefix + CONTENTS_KEY };
}

const isPodAnnotationKey = (key: string) => key === POD_NAME_ANNOTATION || key === POD_CONTENTS_ANNOTATION;

/** True for any key of the GMSA alpha annotation family, pod- or container-level. */
export function isGmsaAnnotationKey(key: string): boolean {
  if (isPodAnnotationKey(key)) return true;
  const at = key.indexOf(CONTAINER_SUFFIX);
  const rest = key.slice(at + CONTAINER_SUFFIX.length);
  return at > 0 && (rest === NAME_KEY || rest === CONTENTS_KEY);
}

/** A GMSA name and/or contents at one place, from a field or an alpha annotation. */
export interface GmsaReference {
  /** For denials: `pod`, `container "web"`, `annotation "pod.alpha.windows.kubernetes.io/..."`. */
  label: string;
  name: string | undefined;
  contents: string | undefined;
}

/** An alpha annotation pair (pod or container), its keys and values, with the field place it speaks for. */
export interface AnnotatedPlace {
  annotation: { nameKey: string; contentsKey: string; name: string | undefined; contents: string | undefined };
  place: OptionsPlace;
}

/** Everything the GMSA rules read from one pod, from one walk of it. */
export interface PodGmsa {
  pod: Pod;
  /** Every place, pod first. */
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
  const refs = places.filter((place) => hasGmsaSettings(place.options)).map(toReference);
  const byContainer = new Map(places.map((place) => [place.containerName, place]));
  const pairs: AnnotatedPlace[] = [];
  const annotationErrors: AdmissionError[] = [];
  const annotations = pod.metadata?.annotations ?? {};
  for (const containerName of listAnnotatedContainers(annotations)) {
    const keys = annotationKeys(containerName);
    const annotation = { ...keys, name: annotations[keys.nameKey], contents: annotations[keys.contentsKey] };
    const label = `annotation "${annotation.name === undefined ? keys.contentsKey : keys.nameKey}"`;
    refs.push({ label, name: annotation.name, contents: annotation.contents });
    const place = byContainer.get(containerName);
    if (place === undefined) {
      annotationErrors.push(
        createRefusal(
          "ERR_UNKNOWN_CONTAINER",
          `${label} names container "${containerName}", which the pod does not have`,
          label,
        ),
      );
      continue;
    }
    const { gmsaCredentialSpecName: fieldName, gmsaCredentialSpec: fieldContents } = place.options ?? {};
    let conflict: string | undefined;
    if (annotation.name !== undefined && fieldName !== undefined && annotation.name !== fieldName) {
      conflict = `annotation "${keys.nameKey}" names credspec "${annotation.name}" but ${place.label} names "${fieldName}"`;
    } else if (
      annotation.contents !== undefined &&
      fieldContents !== undefined &&
      !sameJson(annotation.contents, fieldContents)
    ) {
      conflict = `annotation "${keys.contentsKey}" and ${place.label} carry different credspec contents`;
    }
    if (conflict === undefined) pairs.push({ annotation, place });
    else annotationErrors.push(createRefusal("ERR_ANNOTATION_CONFLICT", conflict, place.label, annotation.name));
  }
  return { pod, places, refs, pairs, annotationErrors };
}

/** The reference a field place holds. */
export function toReference(place: OptionsPlace): GmsaReference {
  return {
    label: place.label,
    name: place.options?.gmsaCredentialSpecName,
    contents: place.options?.gmsaCredentialSpec,
  };
}

/** Whom the alpha annotations speak for: the pod (undefined) first, then containers in sorted key order. */
function listAnnotatedContainers(annotations: Record<string, string>): (string | undefined)[] {
  const keys = Object.keys(annotations).filter(isGmsaAnnotationKey).sort();
  const containers = new Set(
    keys.filter((key) => !isPodAnnotationKey(key)).map((key) => key.slice(0, key.indexOf(CONTAINER_SUFFIX))),
  );
  return [...(keys.some(isPodAnnotationKey) ? [undefined] : []), ...containers];
}

const MAX_KEYS_REPORTED = 8;

/**
 * The keys (dotted paths, never values: contents can be sensitive) where inlined contents and a credspec differ, key
 * order aside; none when equal, undefined when `inlined` is not JSON.
 */
export function listDifferingKeys(inlined: string, credspec: unknown): string[] | undefined {
  // Byte-equal fast path: expand writes JSON.stringify(credspec), so an untouched pod matches without a parse.
  if (inlined === JSON.stringify(credspec)) return [];
  const parsed = parseJson(inlined);
  if (parsed === undefined) return undefined;
  const differingKeys: string[] = [];
  collectDifferences(parsed, credspec, "", differingKeys);
  return differingKeys;
}

/** True when two JSON texts hold equal values (false when either is not JSON). */
export function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  const parsed = parseJson(b);
  return parsed !== undefined && listDifferingKeys(a, parsed)?.length === 0;
}

function collectDifferences(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= MAX_KEYS_REPORTED) return;
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of [...keys].sort()) {
      const child = path === "" ? key : `${path}.${key}`;
      if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) out.push(child);
      else collectDifferences(a[key], b[key], child, out);
      if (out.length >= MAX_KEYS_REPORTED) return;
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) {
      out.push(path === "" ? "(root)" : path);
      return;
    }
    a.forEach((item, i) => collectDifferences(item, b[i], `${path}[${i}]`, out));
    return;
  }
  if (a !== b) out.push(path === "" ? "(root)" : path);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
