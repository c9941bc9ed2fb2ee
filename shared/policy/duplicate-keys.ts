/**
 * A scan of JSON text for an object key written twice in one object: `JSON.parse` keeps the last silently, so the node
 * could read a value other than the one compared (issue 14, section 2). Keys compare unescaped; depth costs heap only.
 */
import { parseJson } from "../json.ts";

/** What a scan found: the first repeated key as a dotted path (`a.b[0].c`), none, or text that is not JSON. */
export type DuplicateKeyScan = { kind: "unique" } | { kind: "duplicate"; path: string } | { kind: "invalid" };

type Frame = { kind: "object"; path: string; keys: Set<string> } | { kind: "array"; path: string; index: number };

/** A string or a structural character: in valid JSON, numbers, literals and white space lie between them. */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\]:,]/g;

/** Finds the first object key repeated within one object, at any depth of `text`. */
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
