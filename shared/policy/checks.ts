/**
 * The GMSA rules both functions apply before any fact is loaded: Kubernetes names, the shape of inlined contents
 * (JSON, no repeated key), `runAsUserName` warnings; and how refusals become a Decision.
 */
import type { Decision } from "../admission/review.ts";
import { createRefusal, type AdmissionError, type AdmissionErrorCode } from "../errors.ts";
import { parseJson } from "../json.ts";
import type { GmsaReference, OptionsPlace } from "./pod-gmsa.ts";

// Kubernetes name rules (apimachinery `IsDNS1123Subdomain` / `IsDNS1123Label`), here so every layer may import them.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A DNS-1123 label: at most 63 lowercase alphanumerics or '-', starting and ending alphanumeric (namespaces). */
export function isDns1123Label(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}

/** A DNS-1123 subdomain: at most 253 characters of dot-separated labels (GMSACredentialSpecs, service accounts). */
export function isDns1123Subdomain(name: string): boolean {
  return name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}

/** At most this many distinct credspecs in one pod, to bound a review's cost; infra/deploy/policy renders the same number. */
export const MAX_CREDSPECS_PER_POD = 16;

/** Refuses, before any API call (422), names that are not DNS-1123 subdomains and more than {@link MAX_CREDSPECS_PER_POD} names. */
export function checkNames(refs: GmsaReference[]): AdmissionError[] {
  const invalid = refs.filter((ref) => ref.name !== undefined && !isDns1123Subdomain(ref.name));
  const describe = (ref: GmsaReference) =>
    `${ref.label}: credspec name ${JSON.stringify(truncate(ref.name ?? ""))} is not a valid DNS-1123 subdomain`;
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
    const refuse = (code: AdmissionErrorCode, problem: string) =>
      errors.push(createRefusal(code, `${ref.label}: ${problem}`, ref.label, ref.name));
    // The scan parses the contents first: `invalid` means they are not JSON.
    const scan = ref.contents === undefined || ref.name === undefined ? undefined : findDuplicateKey(ref.contents);
    if (ref.contents !== undefined && ref.name === undefined)
      refuse("ERR_CONTENTS_WITHOUT_NAME", "GMSA credspec contents are set without a credspec name");
    else if (scan?.kind === "invalid")
      refuse("ERR_CONTENTS_NOT_JSON", `GMSA credspec contents for "${ref.name}" are not valid JSON`);
    else if (scan?.kind === "duplicate") {
      refuse(
        "ERR_DUPLICATE_CREDSPEC_KEY",
        `GMSA credspec contents for "${ref.name}" repeat the key ${JSON.stringify(truncate(scan.path, 160))}; each key may appear once per object`,
      );
    } else if (ref.contents === undefined && ref.name !== undefined) {
      refuse(
        "ERR_NAME_WITHOUT_CONTENTS",
        `credspec "${ref.name}" was never inlined (is the expand webhook installed?)`,
      );
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

/** What a scan found: the first repeated key as a dotted path (`a.b[0].c`), none, or text that is not JSON. */
type DuplicateKeyScan = { kind: "unique" } | { kind: "duplicate"; path: string } | { kind: "invalid" };

type Frame = { kind: "object"; path: string; keys: Set<string> } | { kind: "array"; path: string; index: number };

/** A string or a structural character: in valid JSON, numbers, literals and white space lie between them. */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\]:,]/g;

/**
 * The first key repeated within one object, at any depth: `JSON.parse` keeps the last silently, so the node could read
 * a value other than the one compared. Keys compare unescaped; depth costs heap only.
 */
export function findDuplicateKey(text: string): DuplicateKeyScan {
  if (parseJson(text) === undefined) return { kind: "invalid" };
  const stack: Frame[] = [];
  let path = "";
  let expectKey = false;
  for (const [token] of text.matchAll(TOKEN)) {
    const top = stack.at(-1);
    if (token === "{") {
      stack.push({ kind: "object", path, keys: new Set() });
      expectKey = true;
    } else if (token === "[") {
      stack.push({ kind: "array", path, index: 0 });
      path = `${path}[0]`;
    } else if (token === "}" || token === "]") {
      stack.pop();
    } else if (token === "," && top?.kind === "object") {
      expectKey = true;
    } else if (token === "," && top?.kind === "array") {
      top.index++;
      path = `${top.path}[${top.index}]`;
    } else if (expectKey && top?.kind === "object") {
      const key = JSON.parse(token) as string;
      path = top.path === "" ? key : `${top.path}.${key}`;
      if (top.keys.has(key)) return { kind: "duplicate", path };
      top.keys.add(key);
      expectKey = false;
    }
  }
  return { kind: "unique" };
}

/** The warning for a review about anything but a Pod: allowed unchanged. */
export function otherKindWarning({ group, version, kind }: { group: string; version: string; kind: string }): string {
  return `gmsa-webhooks only reviews core/v1 Pods; ${group === "" ? "core" : group}/${version} ${kind} was allowed unchanged (check the webhook's rules)`;
}

/** Denied with `errors` when any, each sentence once (two subjects' reviews can fail alike), else allowed; with `warnings`. */
export function decide(errors: AdmissionError[], warnings: string[] = []): Decision {
  const warned = warnings.length === 0 ? {} : { warnings };
  const seen = new Set<string>();
  const distinct = errors.filter((error) => !seen.has(error.message) && seen.add(error.message));
  return distinct.length === 0 ? { allowed: true, ...warned } : { allowed: false, errors: distinct, ...warned };
}
