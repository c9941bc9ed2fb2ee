import {
  ContentsNotJsonError,
  ContentsWithoutNameError,
  DuplicateCredSpecKeyError,
  InvalidCredSpecNameError,
  NameWithoutContentsError,
  TooManyReferencesError,
  type AdmissionError,
} from "../errors.ts";
import { isJson } from "./contents.ts";
import { findDuplicateKey, type DuplicateKeyScan } from "./duplicate-keys.ts";
import { isDns1123Subdomain } from "./names.ts";
import type { GmsaReference } from "./references.ts";

/** Refuses names that are not DNS-1123 subdomains (422), before any API call. */
export function checkNames(refs: GmsaReference[]): AdmissionError[] {
  return refs
    .filter((ref) => ref.name !== undefined && !isDns1123Subdomain(ref.name))
    .map(
      (ref) =>
        new InvalidCredSpecNameError(`${ref.label}: credspec name ${JSON.stringify(truncate(ref.name ?? ""))} is not a valid DNS-1123 subdomain`, {
          where: { place: ref.label },
        }),
    );
}

/**
 * At most this many distinct credspec names in one pod: bounds what one review costs (a fetch and one or two access
 * reviews per name). A constant, not a setting: pods name one or two gMSAs, and the ValidatingAdmissionPolicy of
 * infra/policy is rendered with the same number.
 */
export const MAX_CREDSPECS_PER_POD = 16;

/** Refuses a pod naming more than {@link MAX_CREDSPECS_PER_POD} distinct credspecs (422). */
export function checkReferenceCount(names: ReadonlySet<string>): AdmissionError[] {
  if (names.size <= MAX_CREDSPECS_PER_POD) return [];
  return [
    new TooManyReferencesError(`the pod names ${names.size} distinct credspecs; at most ${MAX_CREDSPECS_PER_POD} are accepted in one pod`, {
      where: { place: "pod" },
    }),
  ];
}

/**
 * The checks authorize makes without any fact from the API server: contents need a name, contents must be
 * JSON without a repeated object key, a name needs contents (expand fills them; their absence means expand did not run).
 */
export function checkContentsShape(refs: GmsaReference[]): AdmissionError[] {
  const errors: AdmissionError[] = [];
  for (const ref of refs) {
    const where = { place: ref.label, ...(ref.name === undefined ? {} : { credSpecName: ref.name }) };
    if (ref.contents !== undefined && ref.name === undefined) {
      errors.push(new ContentsWithoutNameError(`${ref.label}: GMSA credspec contents are set without a credspec name`, { where }));
    } else if (ref.contents !== undefined && !contentsShape(ref.contents).json) {
      errors.push(new ContentsNotJsonError(`${ref.label}: GMSA credspec contents for "${ref.name}" are not valid JSON`, { where }));
    } else if (ref.contents !== undefined) {
      const { scan } = contentsShape(ref.contents);
      if (scan?.kind === "duplicate") {
        errors.push(
          new DuplicateCredSpecKeyError(
            `${ref.label}: GMSA credspec contents for "${ref.name}" repeat the key ${JSON.stringify(truncate(scan.path, 160))}; each key may appear once per object`,
            { where },
          ),
        );
      }
    } else if (ref.name !== undefined) {
      errors.push(
        new NameWithoutContentsError(`${ref.label}: credspec "${ref.name}" was never inlined (is the expand webhook installed?)`, { where }),
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

/** Whether contents are JSON, and if so the strict scan for a repeated key. */
function contentsShape(contents: string): { json: boolean; scan?: DuplicateKeyScan } {
  return isJson(contents) ? { json: true, scan: findDuplicateKey(contents) } : { json: false };
}
