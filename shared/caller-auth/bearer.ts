/** CALLER_AUTH=bearer: the API server sends one of CALLER_AUTH_TOKENS, compared in constant time. */
import { RUNTIMES } from "../config/runtime.ts";
import type { CallerAuthMode } from "./mode.ts";
import { readSecrets } from "./mode.ts";
import { bearerTokens } from "./refusal.ts";

export type BearerOptions = { mode: "bearer"; tokens: readonly string[] };

export const bearer = {
  name: "bearer",
  variables: ["CALLER_AUTH_TOKENS"],
  runtimes: RUNTIMES,
  summary: "the API server sends a token from its admission configuration (infra/deploy/caller-auth/bearer)",
  read(read) {
    const tokens = readSecrets(read, "CALLER_AUTH_TOKENS");
    if (tokens.length === 0)
      read.problems.push("CALLER_AUTH=bearer needs CALLER_AUTH_TOKENS (comma-separated accepted tokens)");
    return { mode: "bearer", tokens };
  },
  middleware: (options, { logger }) => bearerTokens(options.tokens, logger, "bearer"),
} as const satisfies CallerAuthMode<BearerOptions>;
