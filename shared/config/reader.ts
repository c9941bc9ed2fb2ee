import { VARIABLES, type DefaultedTextName, type IntegerName, type IntegerVariable, type VariableName } from "./variables.ts";

/** Environment variables (Node) or Worker vars/secrets, all strings. */
export type Bindings = Record<string, string | undefined>;

/**
 * Reads typed values with the bounds and defaults of variables.ts, recording a problem (and returning the default)
 * for each bad one, as `NAME must <rule>, not "<value>"`; a secret's value is never quoted.
 */
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
  text(name: DefaultedTextName): string {
    return this.optional(name) ?? VARIABLES[name].default;
  }

  /** The value as given (a kubeconfig YAML keeps its whitespace), or undefined when unset or blank. */
  raw(name: VariableName): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === "" ? undefined : value;
  }

  /** A comma-separated list, items trimmed, empty items dropped. */
  items(name: VariableName): string[] {
    return (this.optional(name) ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  }

  /** The integer within the variable's bounds, else its default (a problem recorded when the value was bad). */
  integer(name: IntegerName): number {
    const { default: fallback, min, max }: IntegerVariable = VARIABLES[name];
    const text = this.optional(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (/^-?\d+$/.test(text) && Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max)) return value;
    this.problem(name, `must be an integer ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`, text);
    return fallback;
  }

  boolean(name: "RANDOM_HOSTNAME"): boolean {
    const text = this.optional(name)?.toLowerCase();
    if (text === undefined) return VARIABLES[name].default;
    if (text === "true" || text === "false") return text === "true";
    this.problem(name, "must be true or false", text);
    return VARIABLES[name].default;
  }

  oneOf<T extends string>(name: "LOG_LEVEL" | "REVIEW_REQUESTING_USER" | "ENFORCEMENT", allowed: readonly T[]): T {
    const text = this.optional(name);
    const fallback = VARIABLES[name].default as T;
    if (text === undefined) return fallback;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    this.problem(name, `must be one of ${allowed.join(", ")}`, text);
    return fallback;
  }

  list<T extends string>(name: "FUNCTIONS", allowed: readonly T[]): T[] {
    const text = this.optional(name);
    const fallback = [...VARIABLES[name].default] as T[];
    if (text === undefined) return fallback;
    const items = this.items(name);
    const bad = items.filter((s) => !(allowed as readonly string[]).includes(s));
    if (bad.length > 0 || items.length === 0) {
      this.problem(name, `must list some of ${allowed.join(", ")}`, text);
      return fallback;
    }
    return [...new Set(items)] as T[];
  }

  /** Records `NAME <requirement>, not "<value>"`; without the value for a secret variable. */
  problem(name: VariableName, requirement: string, value: string): void {
    const variable = VARIABLES[name];
    const secret = variable.kind === "text" && variable.secret === true;
    this.problems.push(secret ? `${name} ${requirement}` : `${name} ${requirement}, not ${JSON.stringify(value)}`);
  }
}
