/** CALLER_AUTH=path: the functions answer at `/<function>/<secret>` only, for control planes that send no credential. */
import { timingSafeEqual } from "hono/utils/buffer";
import { RUNTIMES } from "../config/runtime.ts";
import { PATH_SECRET_RULE, readSecrets, type CallerAuthMode } from "./mode.ts";
import { compareTokensAsIs, refuseCaller } from "./refusal.ts";

/** Two secrets while one replaces the other. */
export type PathOptions = { mode: "path"; secrets: readonly string[] };

export const path = {
  name: "path",
  variables: ["CALLER_AUTH_PATH_SECRET"],
  runtimes: RUNTIMES,
  summary:
    "managed control planes send no credential; the secret ends the webhook URL (infra/deploy/overlays/cloudflare-path)",
  // The plain path stays routed too, so that a call without the secret is a 401 like a wrong one.
  routes: ["/:secret"],
  read(read) {
    const secrets = readSecrets(read, "CALLER_AUTH_PATH_SECRET");
    if (secrets.length === 0) {
      read.problems.push(
        `CALLER_AUTH=path needs CALLER_AUTH_PATH_SECRET: ${PATH_SECRET_RULE} (two, comma-separated, while rotating)`,
      );
    }
    return { mode: "path", secrets };
  },
  middleware:
    ({ secrets }, { logger }) =>
    async (c, next) => {
      const presented = c.req.param("secret");
      if (presented === undefined) refuseCaller(logger, "path", 401, "no path secret");
      // Every secret is compared in full, so the time taken does not tell which one matched.
      let found = false;
      for (const secret of secrets) found = (await timingSafeEqual(secret, presented, compareTokensAsIs)) || found;
      if (!found) refuseCaller(logger, "path", 401, "wrong path secret");
      await next();
    },
} as const satisfies CallerAuthMode<PathOptions>;
