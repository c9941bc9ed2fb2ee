/** What a caller-auth mode is made of (one file per mode beside this one, the set in index.ts; docs/security.md). */
import type { Context, MiddlewareHandler } from "hono";
import type { Reader } from "../config/reader.ts";
import type { Runtime } from "../config/runtime.ts";
import type { VariableName } from "../config/variables.ts";
import type { AppEnv } from "../http/env.ts";
import type { Logger } from "../log.ts";

/** The connection's client certificate as the Node server saw it: sent, verified against the CA (else OpenSSL's `error`), its CNs. */
export type ClientCertificateReader = (
  c: Context<AppEnv>,
) => { presented: boolean; authorized: boolean; error: string | undefined; commonNames: string[] } | undefined;

/** The `logger` of refusals (never the credential), the clock of JWT `exp` / `nbf` (epoch ms), the Node server's certificate reader. */
export type CallerAuthDeps = { logger: Logger; now?: () => number; clientCertificate?: ClientCertificateReader };

/** What a mode's runtime check sees of the configuration. */
export type ListenerSettings = {
  runtime: Runtime;
  host: string | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
};

/**
 * One caller-auth mode: CALLER_AUTH's value `name` and everything that differs by mode. Config, the app, the Node
 * server and the manifest generators read these facts; none of them names a mode.
 */
export interface CallerAuthMode<Options extends { mode: string }> {
  readonly name: Options["mode"];
  /** The CALLER_AUTH_* variables it reads; setting one while another mode is chosen is a problem. */
  readonly variables: readonly VariableName[];
  /** Where it may be configured. */
  readonly runtimes: readonly Runtime[];
  /** Accepted only on a loopback listener, so never deployed (the chart does not offer it). */
  readonly loopbackOnly?: boolean;
  /** One line on how the API server authenticates in this mode (wrangler.toml's comment of its Workers). */
  readonly summary?: string;
  /** Route suffixes served beside `/<function>`, each with the same checks (path: `/:secret`). */
  readonly routes?: readonly string[];
  /** Reads its variables; problems (never a secret's value) go to the reader. */
  read(read: Reader): Options;
  /** Why the mode cannot work with this listener and runtime (`others`: the modes that can, for the message), if so. */
  checkListener?(settings: ListenerSettings, others: string): string | undefined;
  /** The PEM file of the CA the TLS layer asks and verifies client certificates against (mtls). */
  clientCaFile?(options: Options): string;
  /**
   * The middleware, for options config has checked, run before the body is read: 401 unauthenticated, 403 not an
   * allowed caller, 503 when the caller cannot be checked now.
   */
  middleware(options: Options, deps: CallerAuthDeps): MiddlewareHandler<AppEnv>;
}

/** How long and of which characters each comma-separated secret must be. */
const SECRET_RULES = {
  // Bearer tokens: RFC 6750 `b64token`, so they can be sent as configured.
  token: {
    min: 16,
    chars: /^[A-Za-z0-9\-._~+/]+=*$/,
    rule: "at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (then =)",
  },
  // Path secrets: URL-unreserved characters only (RFC 3986 section 2.3), so no encoding can disguise them.
  secret: { min: 32, chars: /^[A-Za-z0-9\-._~]+$/, rule: "at least 32 characters of A-Z a-z 0-9 - . _ ~" },
};

/** The rule a path secret must meet, for messages. */
export const PATH_SECRET_RULE = SECRET_RULES.secret.rule;

/** Comma-separated secrets (old,new while rotating), each checked: bearer tokens (METRICS_TOKENS: a scraper's, never the admission one), path secrets. */
export function readSecrets(
  read: Reader,
  name: "CALLER_AUTH_TOKENS" | "METRICS_TOKENS" | "CALLER_AUTH_PATH_SECRET",
): string[] {
  const kind = name === "CALLER_AUTH_PATH_SECRET" ? "secret" : "token";
  const { min, chars, rule } = SECRET_RULES[kind];
  const values = read.items(name);
  values.forEach((value, i) => {
    if (value.length < min || !chars.test(value))
      read.problems.push(`${name}: ${kind} ${i + 1} must be ${rule} (it has ${value.length} characters)`);
  });
  return values;
}
