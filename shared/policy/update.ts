import { at, GmsaChangedError, type AdmissionError } from "../errors.ts";
import { hasGmsaSettings, isGmsaAnnotationKey, toReference, type GmsaReference as Setting, type OptionsPlace, type PodGmsa } from "./references.ts";

/**
 * GMSA settings can never change on UPDATE (400, docs/security.md): no name or contents may change, appear or
 * disappear on the pod, a container or an alpha annotation. `isNew` picks the ephemeral containers judged as created.
 */
export function checkUpdate(old: PodGmsa, now: PodGmsa, isNew: (place: OptionsPlace) => boolean = () => false): AdmissionError[] {
  const before = settingsOf(old, () => false);
  const after = settingsOf(now, isNew);
  const errors: AdmissionError[] = [];
  for (const label of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(label);
    const is = after.get(label);
    const change = describeChange(was, is);
    if (change !== undefined) errors.push(new GmsaChangedError(`${label}: GMSA settings cannot change on update (${change})`, at(label, is?.name ?? was?.name)));
  }
  return errors;
}

function describeChange(was: Setting | undefined, now: Setting | undefined): string | undefined {
  const changes: string[] = [];
  if (was?.name !== now?.name) {
    if (was?.name === undefined) changes.push(`credspec name "${now?.name}" added`);
    else if (now?.name === undefined) changes.push(`credspec name "${was.name}" removed`);
    else changes.push(`credspec name changed from "${was.name}" to "${now.name}"`);
  }
  if (was?.contents !== now?.contents) changes.push(`contents ${was?.contents === undefined ? "added" : now?.contents === undefined ? "removed" : "changed"}`);
  return changes.length === 0 ? undefined : changes.join(", ");
}

function settingsOf({ pod, places }: PodGmsa, skip: (place: OptionsPlace) => boolean): Map<string, Setting> {
  const kept = places.filter((place) => hasGmsaSettings(place.options) && !skip(place));
  const settings = new Map(kept.map((place): [string, Setting] => [place.label, toReference(place)]));
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (!isGmsaAnnotationKey(key)) continue;
    const label = `annotation "${key}"`;
    const isName = key.endsWith("-name");
    settings.set(label, { label, name: isName ? value : undefined, contents: isName ? undefined : value });
  }
  return settings;
}
