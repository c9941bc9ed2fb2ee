import type { Pod } from "./pod.ts";

/** The legacy alpha annotations of the GMSA KEP: today's kubelet ignores them, expand turns them into fields. */
export const POD_NAME_ANNOTATION = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name";
export const POD_CONTENTS_ANNOTATION = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec";
const CONTAINER_SUFFIX = ".container.alpha.windows.kubernetes.io/";
const NAME_KEY = "gmsa-credential-spec-name";
const CONTENTS_KEY = "gmsa-credential-spec";

/** One annotation pair: for the pod or for the container `containerName`. */
export interface AnnotationReference {
  containerName?: string;
  nameKey: string;
  contentsKey: string;
  name: string | undefined;
  contents: string | undefined;
}

/** The annotation keys for the pod (no container) or a container. */
export function annotationKeys(containerName?: string): { nameKey: string; contentsKey: string } {
  if (containerName === undefined) return { nameKey: POD_NAME_ANNOTATION, contentsKey: POD_CONTENTS_ANNOTATION };
  const prefix = `${containerName}${CONTAINER_SUFFIX}`;
  return { nameKey: prefix + NAME_KEY, contentsKey: prefix + CONTENTS_KEY };
}

/** True for any key of the GMSA alpha annotation family, pod- or container-level. */
export function isGmsaAnnotationKey(key: string): boolean {
  if (key === POD_NAME_ANNOTATION || key === POD_CONTENTS_ANNOTATION) return true;
  const at = key.indexOf(CONTAINER_SUFFIX);
  if (at <= 0) return false;
  const rest = key.slice(at + CONTAINER_SUFFIX.length);
  return rest === NAME_KEY || rest === CONTENTS_KEY;
}

/** Every pod- and container-level annotation pair present on the pod, pod first, keys in sorted order. */
export function listAnnotationReferences(pod: Pod): AnnotationReference[] {
  const annotations = pod.metadata?.annotations ?? {};
  let podLevel = false;
  const containers = new Set<string>();
  for (const key of Object.keys(annotations).sort()) {
    if (!isGmsaAnnotationKey(key)) continue;
    if (key === POD_NAME_ANNOTATION || key === POD_CONTENTS_ANNOTATION) podLevel = true;
    else containers.add(key.slice(0, key.indexOf(CONTAINER_SUFFIX)));
  }
  return [...(podLevel ? [undefined] : []), ...containers].map((containerName) => {
    const keys = annotationKeys(containerName);
    return {
      ...(containerName === undefined ? {} : { containerName }),
      ...keys,
      name: annotations[keys.nameKey],
      contents: annotations[keys.contentsKey],
    };
  });
}
