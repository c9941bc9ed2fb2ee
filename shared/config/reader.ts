import { VARIABLES, type Variable, type VariableName } from "./variables.ts";

/** Environment variables (Node) or Worker vars/secrets, all strings. */
export type Bindings = Record<string, string | undefined>;

type NamesOf<Shape> = { [N in VariableName]: (typeof VARIABLES)[N] extends Shape ? N : never }[VariableName];
/** The values a oneOf or list variable may take. */
type ValueOf<N extends NamesOf<{ kind: "oneOf" | "list" }>> = (typeof VARIABLES)[N]["values"][number];

/** Reads typed values with variables.ts' bounds and defaults; a bad one is a problem (`NAME must <rule>, not "<value>"`) and its default. */
export class Reader {
  readonly env: Bindings;
  readonly problems: string[];

  constructor(env: Bindings, problems: string[]) {
    this.env = env;
    this.problems = problems;
  }

  /** The value, trimmed, or undefined when unset or blank. */
  optional(name: VariableName): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  }

  /** The value, trimmed, or the variable's default when unset or blank. */
  text(name: NamesOf<{ kind: "text"; default: string }>): string {
    return this.optional(name) ?? VARIABLES[name].default;
  }

  /** A comma-separated list, items trimmed, empty items dropped. */
  items(name: VariableName): string[] {
    return (this.optional(name) ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }

  /** The integer within the variable's bounds, else its default. */
  integer(name: NamesOf<{ kind: "integer" }>): number {
    const { default: fallback, min, max }: Extract<Variable, { kind: "integer" }> = VARIABLES[name];
    const text = this.optional(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (/^-?\d+$/.test(text) && Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max))
      return value;
    this.problem(
      name,
      `must be an integer ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`,
      text,
    );
    return fallback;
  }

  boolean(name: NamesOf<{ kind: "boolean" }>): boolean {
    const text = this.optional(name)?.toLowerCase();
    if (text === undefined) return VARIABLES[name].default;
    if (text === "true" || text === "false") return text === "true";
    this.problem(name, "must be true or false", text);
    return VARIABLES[name].default;
  }

  /** One of the variable's values, else its default. */
  oneOf<N extends NamesOf<{ kind: "oneOf" }>>(name: N): ValueOf<N> {
    const { values, default: fallback }: { values: readonly string[]; default: string } = VARIABLES[name];
    const text = this.optional(name) ?? fallback;
    if (values.includes(text)) return text as ValueOf<N>;
    this.problem(name, `must be one of ${values.join(", ")}`, text);
    return fallback as ValueOf<N>;
  }

  /** Some of the variable's values, once each, else its default. */
  list<N extends NamesOf<{ kind: "list" }>>(name: N): ValueOf<N>[] {
    const { values, default: fallback }: { values: readonly string[]; default: readonly string[] } = VARIABLES[name];
    const text = this.optional(name);
    const items = text === undefined ? fallback : this.items(name);
    if (items.length > 0 && items.every((item) => values.includes(item))) return [...new Set(items)] as ValueOf<N>[];
    this.problem(name, `must list some of ${values.join(", ")}`, text ?? "");
    return [...fallback] as ValueOf<N>[];
  }

  /** Records `NAME <requirement>, not "<value>"`; without the value for a secret variable. */
  problem(name: VariableName, requirement: string, value: string): void {
    const variable: Variable = VARIABLES[name];
    const secret = variable.kind === "text" && variable.secret === true;
    this.problems.push(secret ? `${name} ${requirement}` : `${name} ${requirement}, not ${JSON.stringify(value)}`);
  }
}
