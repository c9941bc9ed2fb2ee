/**
 * The YAML most kubeconfigs are written in (kubectl, kind, `aws eks update-kubeconfig`, `az aks get-credentials`, and
 * by hand): block mappings and sequences whose scalars are plain, single-quoted or double-quoted without escapes, each
 * on one line, with comments. Read without the YAML parser, which is most of what a function platform loads at a cold
 * start and 0.9 MiB of the Node server's memory for good (test/bench/RESULTS.md, section G).
 *
 * `{}`, `[]` and one-line flow sequences of plain words (`args: [token, eks]`) are read too.
 *
 * The reader only agrees with the `yaml` package (YAML 1.2, core schema) or declines: anything else returns undefined
 * and the parser reads it (other flow collections, anchors, aliases, tags, block and multi-line scalars, escapes,
 * directives, several documents, tabs, characters outside printable ASCII, repeated keys, and plain scalars that the
 * core schema could read as numbers). test/unit/shared/kubeconfig/block-yaml.test.ts holds the two equal on
 * generated documents.
 */

/** The document as the YAML parser would give it, or undefined when the text is outside this reader's subset. */
export function readBlockYaml(text: string): unknown {
  // Printable ASCII and line feeds only (a CRLF line end is taken apart below).
  if (!/^[\x20-\x7e\r\n]*$/.test(text)) return undefined;
  const lines = contentLines(text);
  if (lines === undefined || lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  const reader = new BlockReader(lines);
  try {
    const value = reader.block(0);
    return reader.done() ? value : undefined;
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}

interface Line {
  indent: number;
  text: string;
}

/** Thrown inside the reader for text outside the subset; never leaves this module. */
class OutsideSubset extends Error {}

function decline(): never {
  throw new OutsideSubset();
}

/** Plain keys: letters, digits and `_.-/`, starting with a letter; not one the core schema reads as null or a boolean. */
const KEY = /^([A-Za-z][\w./-]*):(?: +|$)/;
const SPECIAL_KEYS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);
const SPECIAL_SCALARS = new Map<string, null | boolean>([
  ["~", null],
  ["null", null],
  ["Null", null],
  ["NULL", null],
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);

/** The lines that hold content (no blank or comment-only lines); undefined for a directive or more than one document. */
function contentLines(text: string): Line[] | undefined {
  const lines: Line[] = [];
  const raw = text.split("\n");
  for (let index = 0; index < raw.length; index++) {
    let line = raw[index]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.includes("\r")) return undefined;
    const body = line.trimStart();
    if (body === "" || body.startsWith("#")) continue;
    if (body.startsWith("%") || body.startsWith("...")) return undefined;
    if (body.startsWith("---")) {
      // One document start, before any content.
      if (lines.length > 0 || line !== "---") return undefined;
      continue;
    }
    lines.push({ indent: line.length - body.length, text: body.trimEnd() });
  }
  return lines;
}

class BlockReader {
  private index = 0;
  private readonly lines: Line[];

  constructor(lines: Line[]) {
    this.lines = lines;
  }

  done(): boolean {
    return this.index === this.lines.length;
  }

  /** The mapping or sequence whose first line is the current one, at `indent`. */
  block(indent: number): unknown {
    const line = this.current();
    if (line === undefined || line.indent !== indent) decline();
    return isItem(line.text) ? this.sequence(indent) : this.mapping(indent);
  }

  private current(): Line | undefined {
    return this.lines[this.index];
  }

  private mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (let line = this.current(); line !== undefined && line.indent >= indent; line = this.current()) {
      if (line.indent > indent) decline();
      const key = KEY.exec(line.text);
      if (key === null) decline();
      const name = key[1]!;
      if (SPECIAL_KEYS.has(name) || Object.hasOwn(map, name)) decline();
      const rest = line.text.slice(key[0].length);
      this.index++;
      map[name] = rest === "" || rest.startsWith("#") ? this.nested(indent, true) : scalar(rest);
    }
    return map;
  }

  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (let line = this.current(); line !== undefined && line.indent >= indent && isItem(line.text); line = this.current()) {
      if (line.indent > indent) decline();
      const rest = line.text.slice(1).trimStart();
      if (rest === "" || rest.startsWith("#")) {
        this.index++;
        items.push(this.nested(indent, false));
      } else if (KEY.test(rest) || isItem(rest)) {
        // `- key: value` or `- - item`: a mapping or sequence that starts in the column after the dash.
        const column = indent + line.text.length - rest.length;
        this.lines[this.index] = { indent: column, text: rest };
        items.push(this.block(column));
      } else {
        this.index++;
        items.push(scalar(rest));
      }
    }
    return items;
  }

  /**
   * The value of a key or dash with nothing after it: the block indented under it, or (for a key only) a sequence at
   * the key's own indentation, as kubectl writes them; null when neither follows.
   */
  private nested(indent: number, ofKey: boolean): unknown {
    const next = this.current();
    if (next === undefined || next.indent < indent) return null;
    if (next.indent > indent) return this.block(next.indent);
    return ofKey && isItem(next.text) ? this.sequence(indent) : null;
  }
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

/** One scalar that ends its line (an optional comment after it). */
function scalar(text: string): unknown {
  const first = text[0];
  if (first === '"') return quoted(text, '"');
  if (first === "'") return quoted(text, "'");
  if (first === "[" || first === "{") return flow(text);
  // Indicators (a dash too, unless a letter, a slash or a dash follows: `--region` is a word), and what the core
  // schema could read as a number: digits after a sign or a dot, `.inf`, `.nan`.
  if (/^[?:,[\]{}#&*!|>%@`]|^-(?![A-Za-z/-])|^[-+]?\.?\d|^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)/.test(text)) decline();
  const comment = text.indexOf(" #");
  const value = (comment === -1 ? text : text.slice(0, comment)).trimEnd();
  if (value.includes(": ") || value.endsWith(":")) decline();
  const special = SPECIAL_SCALARS.get(value);
  return special === undefined ? value : special;
}

/** A quoted scalar closed on its line; no escapes in double quotes, `''` for a quote in single ones. */
function quoted(text: string, quote: '"' | "'"): string {
  let value = "";
  let at = 1;
  for (;;) {
    const end = text.indexOf(quote, at);
    if (end === -1) decline();
    value += text.slice(at, end);
    if (quote === "'" && text[end + 1] === "'") {
      value += "'";
      at = end + 2;
      continue;
    }
    at = end + 1;
    break;
  }
  if (quote === '"' && value.includes("\\")) decline();
  const rest = text.slice(at);
  if (rest !== "" && !/^ +#/.test(rest)) decline();
  return value;
}

/** Items of a one-line flow sequence: a letter, `/`, `_` or `--`-style dash first, then no flow indicator or colon. */
const FLOW_ITEM = /^(?:[A-Za-z/_]|-[A-Za-z-])[\w./=+@~-]*$/;

/** `{}`, `[]`, or a flow sequence of plain items on one line (`args: [token, eks, --cluster, prod]`). */
function flow(text: string): unknown {
  const comment = text.indexOf(" #");
  const value = (comment === -1 ? text : text.slice(0, comment)).trimEnd();
  if (value === "{}") return {};
  if (!value.startsWith("[") || !value.endsWith("]")) decline();
  const inner = value.slice(1, -1).trim();
  if (inner === "") return [];
  return inner.split(",").map((item) => {
    const plain = item.trim();
    if (!FLOW_ITEM.test(plain)) decline();
    const special = SPECIAL_SCALARS.get(plain);
    return special === undefined ? plain : special;
  });
}
