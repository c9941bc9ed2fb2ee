/** The caller-auth modes, in the order messages, docs and wrangler.toml list them (docs/security.md, The modes). */
import { bearer } from "./bearer.ts";
import { jwt } from "./jwt.ts";
import type { CallerAuthMode } from "./mode.ts";
import { mtls } from "./mtls.ts";
import { none } from "./none.ts";
import { path } from "./path.ts";

export type { CallerAuthDeps, CallerAuthMode, ClientCertificateReader } from "./mode.ts";

const MODES = [none, bearer, jwt, path, mtls] as const;

/** How callers prove who they are, as a mode's `read` parsed it from CALLER_AUTH and CALLER_AUTH_*. */
export type CallerAuthOptions = Parameters<(typeof MODES)[number]["middleware"]>[0];
export type CallerAuthModeName = CallerAuthOptions["mode"];

/** Every mode; a new one is a file beside this one and an entry here. */
export const CALLER_AUTH_MODES: readonly CallerAuthMode<CallerAuthOptions>[] = MODES;

/** The mode of `options`: its middleware, routes and TLS needs. */
export function findCallerAuthMode(options: CallerAuthOptions): CallerAuthMode<CallerAuthOptions> {
  // Every mode's options come from its own `read`, so the mode is there.
  return CALLER_AUTH_MODES.find((mode) => mode.name === options.mode)!;
}
