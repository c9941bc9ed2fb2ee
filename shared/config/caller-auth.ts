/** The caller-auth section of the configuration: CALLER_AUTH and the CALLER_AUTH_* variables of its mode (shared/caller-auth). */
import { CALLER_AUTH_MODES, findCallerAuthMode, type CallerAuthOptions } from "../caller-auth/index.ts";
import type { ListenerSettings } from "../caller-auth/mode.ts";
import type { Reader } from "./reader.ts";

/** Reads CALLER_AUTH and its mode's variables; problems (never a secret's value) go to the reader; {@link checkCallerAuthListener} judges the runtime. */
export function readCallerAuth(read: Reader): CallerAuthOptions {
  const name = read.optional("CALLER_AUTH");
  const names = CALLER_AUTH_MODES.map((mode) => mode.name).join(", ");
  if (name === undefined) {
    read.problems.push(
      `CALLER_AUTH is not set: choose how callers authenticate (${names}); "none" is for local runs only`,
    );
    return { mode: "none" };
  }
  const chosen = CALLER_AUTH_MODES.find((mode) => mode.name === name);
  if (chosen === undefined) {
    read.problem("CALLER_AUTH", `must be one of ${names}`, name);
    return { mode: "none" };
  }
  // Setting a variable that the chosen mode ignores is reported: a protection not in force.
  for (const other of CALLER_AUTH_MODES) {
    if (other === chosen) continue;
    for (const variable of other.variables)
      if (read.optional(variable) !== undefined)
        read.problems.push(`${variable} is set but CALLER_AUTH is "${name}": unset it`);
  }
  return chosen.read(read);
}

/** Why the chosen mode cannot work on this runtime and listener (none: loopback only; mtls: where TLS ends in the function), if so. */
export function checkCallerAuthListener(options: CallerAuthOptions, settings: ListenerSettings): string | undefined {
  const others = CALLER_AUTH_MODES.filter(
    (mode) => mode.name !== options.mode && mode.loopbackOnly !== true && mode.runtimes.includes(settings.runtime),
  ).map((mode) => mode.name);
  const choices = others.length > 1 ? `${others.slice(0, -1).join(", ")} or ${others.at(-1)}` : others.join("");
  return findCallerAuthMode(options).checkListener?.(settings, choices);
}
