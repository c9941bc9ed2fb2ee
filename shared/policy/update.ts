/** UPDATE rules: a pod's GMSA settings cannot change once created; new ephemeral containers are judged as created. */
import { createRefusal, type AdmissionError } from "../errors.ts";
import {
  hasGmsaSettings,
  isGmsaAnnotationKey,
  toReference,
  type GmsaReference,
  type OptionsPlace,
  type PodGmsa,
} from "./pod-gmsa.ts";

/** Refuses (400) GMSA names or contents changed, added or removed on UPDATE; `isNew` ephemeral containers are judged as created. */
export function checkUpdate(
  old: PodGmsa,
  now: PodGmsa,
  isNew: (place: OptionsPlace) => boolean = () => false,
): AdmissionError[] {
  const before = settingsOf(old, () => false);
  const after = settingsOf(now, isNew);
  const errors: AdmissionError[] = [];
  for (const label of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(label);
    const is = after.get(label);
    const change = describeChange(was, is);
    if (change !== undefined)
      errors.push(
        createRefusal(
          "ERR_GMSA_CHANGED",
          `${label}: GMSA settings cannot change on update (${change})`,
          label,
          is?.name ?? was?.name,
        ),
      );
  }
  return errors;
}

function describeChange(was: GmsaReference | undefined, now: GmsaReference | undefined): string | undefined {
  const changes: string[] = [];
  if (was?.name !== now?.name) {
    if (was?.name === undefined) changes.push(`credspec name "${now?.name}" added`);
    else if (now?.name === undefined) changes.push(`credspec name "${was.name}" removed`);
    else changes.push(`credspec name changed from "${was.name}" to "${now.name}"`);
  }
  if (was?.contents !== now?.contents)
    changes.push(
      `contents ${was?.contents === undefined ? "added" : now?.contents === undefined ? "removed" : "changed"}`,
    );
  return changes.length === 0 ? undefined : changes.join(", ");
}

function settingsOf({ pod, places }: PodGmsa, skip: (place: OptionsPlace) => boolean): Map<string, GmsaReference> {
  const kept = places.filter((place) => hasGmsaSettings(place.options) && !skip(place));
  const settings = new Map(kept.map((place): [string, GmsaReference] => [place.label, toReference(place)]));
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (!isGmsaAnnotationKey(key)) continue;
    const label = `annotation "${key}"`;
    const isName = key.endsWith("-name");
    settings.set(label, { label, name: isName ? value : undefined, contents: isName ? undefined : value });
  }
  return settings;
}
