import { createRefusal, type AdmissionError, type AdmissionErrorCode } from "../errors.ts";
import { findDuplicateKey } from "./contents.ts";
import { isDns1123Subdomain } from "./names.ts";
import { hasGmsaSettings, isGmsaAnnotationKey, toReference, type GmsaReference, type OptionsPlace, type PodGmsa } from "./references.ts";

/** At most this many distinct credspecs in one pod, to bound a review's cost; infra/policy renders the same number. */
export const MAX_CREDSPECS_PER_POD = 16;

/** Refuses, before any API call (422), names that are not DNS-1123 subdomains and more than {@link MAX_CREDSPECS_PER_POD} names. */
export function checkNames(refs: GmsaReference[]): AdmissionError[] {
  const invalid = refs.filter((ref) => ref.name !== undefined && !isDns1123Subdomain(ref.name));
  const describe = (ref: GmsaReference) => `${ref.label}: credspec name ${JSON.stringify(truncate(ref.name ?? ""))} is not a valid DNS-1123 subdomain`;
  const errors = invalid.map((ref) => createRefusal("ERR_INVALID_CREDSPEC_NAME", describe(ref), ref.label));
  const count = distinctNames(refs).size;
  const message = `the pod names ${count} distinct credspecs; at most ${MAX_CREDSPECS_PER_POD} are accepted in one pod`;
  if (count > MAX_CREDSPECS_PER_POD) errors.push(createRefusal("ERR_TOO_MANY_REFERENCES", message, "pod"));
  return errors;
}

/** Authorize's checks without facts: contents need a name and must be JSON without a repeated key; a name needs contents. */
export function checkContentsShape(refs: GmsaReference[]): AdmissionError[] {
  const errors: AdmissionError[] = [];
  for (const ref of refs) {
    const refuse = (code: AdmissionErrorCode, problem: string) => errors.push(createRefusal(code, `${ref.label}: ${problem}`, ref.label, ref.name));
    // The scan parses the contents first: `invalid` means they are not JSON.
    const scan = ref.contents === undefined || ref.name === undefined ? undefined : findDuplicateKey(ref.contents);
    if (ref.contents !== undefined && ref.name === undefined) refuse("ERR_CONTENTS_WITHOUT_NAME", "GMSA credspec contents are set without a credspec name");
    else if (scan?.kind === "invalid") refuse("ERR_CONTENTS_NOT_JSON", `GMSA credspec contents for "${ref.name}" are not valid JSON`);
    else if (scan?.kind === "duplicate") {
      refuse("ERR_DUPLICATE_CREDSPEC_KEY", `GMSA credspec contents for "${ref.name}" repeat the key ${JSON.stringify(truncate(scan.path, 160))}; each key may appear once per object`);
    } else if (ref.contents === undefined && ref.name !== undefined) {
      refuse("ERR_NAME_WITHOUT_CONTENTS", `credspec "${ref.name}" was never inlined (is the expand webhook installed?)`);
    }
  }
  return errors;
}

/** The distinct, valid credspec names the references hold, in first-seen order. */
export function distinctNames(refs: GmsaReference[]): Set<string> {
  const names = new Set<string>();
  for (const ref of refs) if (ref.name !== undefined && isDns1123Subdomain(ref.name)) names.add(ref.name);
  return names;
}

/** Keeps user text in messages short. */
export function truncate(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The only accounts that use the GMSA identity on the network (the windowsOptions KEP). */
const NETWORK_IDENTITY_USERS = new Set(["nt authority\\system", "nt authority\\network service"]);

/** Warnings for containers whose `runAsUserName` (own or the pod's) will not use their GMSA on the network. */
export function listRunAsUserWarnings(places: readonly OptionsPlace[]): string[] {
  const [podPlace, ...containers] = places;
  const warnings: string[] = [];
  for (const place of containers) {
    const name = place.options?.gmsaCredentialSpecName ?? podPlace?.options?.gmsaCredentialSpecName;
    const user = place.options?.runAsUserName ?? podPlace?.options?.runAsUserName;
    if (name === undefined || user === undefined || NETWORK_IDENTITY_USERS.has(user.toLowerCase())) continue;
    warnings.push(
      `${place.label} uses GMSA credspec "${name}" but runs as "${truncate(user, 40)}"; only NT AUTHORITY\\SYSTEM and NT AUTHORITY\\NETWORK SERVICE use the GMSA identity on the network`,
    );
  }
  return warnings;
}

/** Refuses (400) GMSA names or contents changed, added or removed on UPDATE; `isNew` ephemeral containers are judged as created. */
export function checkUpdate(old: PodGmsa, now: PodGmsa, isNew: (place: OptionsPlace) => boolean = () => false): AdmissionError[] {
  const before = settingsOf(old, () => false);
  const after = settingsOf(now, isNew);
  const errors: AdmissionError[] = [];
  for (const label of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(label);
    const is = after.get(label);
    const change = describeChange(was, is);
    if (change !== undefined) errors.push(createRefusal("ERR_GMSA_CHANGED", `${label}: GMSA settings cannot change on update (${change})`, label, is?.name ?? was?.name));
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
  if (was?.contents !== now?.contents) changes.push(`contents ${was?.contents === undefined ? "added" : now?.contents === undefined ? "removed" : "changed"}`);
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
