/**
 * A strict scan of JSON text for an object key written twice in one object. `JSON.parse` keeps the last of
 * repeated keys silently, so contents that compare equal to a credspec could still hand the node a second,
 * different value: authorize refuses them (issue 14, section 2). Keys count as the same after unescaping
 * (`"a\u0062"` and `"ab"`). The scan is iterative, so nesting depth costs heap, never the call stack.
 */

/** What a scan found: the first repeated key as a dotted path (`a.b[0].c`), none, or text that is not JSON. */
export type DuplicateKeyScan = { kind: "unique" } | { kind: "duplicate"; path: string } | { kind: "invalid" };

type Frame = { kind: "object"; path: string; keys: Set<string> } | { kind: "array"; path: string; index: number };

const WHITESPACE = /[ \t\n\r]*/y;
const LITERAL = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null/y;
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings: the scan must see them
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Finds the first object key repeated within one object, at any depth of `text`. */
export function findDuplicateKey(text: string): DuplicateKeyScan {
  let i = 0;
  const skipWhitespace = (): void => {
    WHITESPACE.lastIndex = i;
    WHITESPACE.test(text);
    i = WHITESPACE.lastIndex;
  };
  /** Reads the string starting at `i` (a quote) and returns its unescaped value, or undefined if malformed. */
  const readString = (): string | undefined => {
    if (text[i] !== '"') return undefined;
    i++;
    let value = "";
    for (;;) {
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.test(text);
      value += text.slice(i, PLAIN_RUN.lastIndex);
      i = PLAIN_RUN.lastIndex;
      const c = text[i];
      if (c === '"') {
        i++;
        return value;
      }
      if (c !== "\\") return undefined; // end of text or a raw control character
      const e = text[i + 1];
      if (e === "u") {
        const hex = text.slice(i + 2, i + 6);
        if (!HEX4.test(hex)) return undefined;
        value += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
      } else {
        const escaped = e === undefined ? undefined : ESCAPES[e];
        if (escaped === undefined) return undefined;
        value += escaped;
        i += 2;
      }
    }
  };

  const stack: Frame[] = [];
  let path = "";
  let state: "value" | "key" | "after" = "value";
  for (;;) {
    skipWhitespace();
    const top = stack.at(-1);
    if (state === "value") {
      const c = text[i];
      if (c === "{" || c === "[") {
        i++;
        skipWhitespace();
        if (text[i] === (c === "{" ? "}" : "]")) {
          i++;
          state = "after";
        } else if (c === "{") {
          stack.push({ kind: "object", path, keys: new Set() });
          state = "key";
        } else {
          stack.push({ kind: "array", path, index: 0 });
          path = `${path}[0]`;
        }
      } else if (c === '"') {
        if (readString() === undefined) return { kind: "invalid" };
        state = "after";
      } else {
        LITERAL.lastIndex = i;
        if (!LITERAL.test(text)) return { kind: "invalid" };
        i = LITERAL.lastIndex;
        state = "after";
      }
    } else if (state === "key") {
      if (top?.kind !== "object") return { kind: "invalid" };
      const key = readString();
      if (key === undefined) return { kind: "invalid" };
      path = top.path === "" ? key : `${top.path}.${key}`;
      if (top.keys.has(key)) return { kind: "duplicate", path };
      top.keys.add(key);
      skipWhitespace();
      if (text[i] !== ":") return { kind: "invalid" };
      i++;
      state = "value";
    } else if (top === undefined) {
      return i === text.length ? { kind: "unique" } : { kind: "invalid" };
    } else {
      const c = text[i];
      if (c === ",") {
        i++;
        if (top.kind === "object") state = "key";
        else {
          top.index++;
          path = `${top.path}[${top.index}]`;
          state = "value";
        }
      } else if (c === (top.kind === "object" ? "}" : "]")) {
        i++;
        stack.pop();
      } else return { kind: "invalid" };
    }
  }
}
