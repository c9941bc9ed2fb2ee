import { parseJson } from "../json.ts";

/** How inlined contents compare with the resource's `credspec`. */
export type ContentsComparison = { kind: "equal" } | { kind: "not-json" } | { kind: "different"; differingKeys: string[] };

const MAX_KEYS_REPORTED = 8;

/**
 * Deep JSON equality of inlined contents and a credspec: key order does not matter, types do, arrays keep
 * their order. Mismatches report the differing keys as dotted paths, never values (contents can be sensitive).
 */
export function compareCredSpecContents(inlined: string, credspec: unknown): ContentsComparison {
  // Byte-equal fast path: expand writes JSON.stringify(credspec), so an untouched pod matches without a parse.
  if (inlined === JSON.stringify(credspec)) return { kind: "equal" };
  const parsed = parseJson(inlined);
  if (parsed === undefined) return { kind: "not-json" };
  const differingKeys: string[] = [];
  collectDifferences(parsed, credspec, "", differingKeys);
  return differingKeys.length === 0 ? { kind: "equal" } : { kind: "different", differingKeys };
}

/** True when two JSON texts hold equal values (false when either is not JSON). */
export function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  const parsed = parseJson(b);
  return parsed !== undefined && compareCredSpecContents(a, parsed).kind === "equal";
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
