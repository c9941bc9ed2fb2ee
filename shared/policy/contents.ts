import { parseJson } from "../json.ts";

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
