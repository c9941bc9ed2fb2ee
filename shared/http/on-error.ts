import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";
import type { AppEnv } from "./env.ts";

/**
 * The app's error handler, for requests that are not a usable review: an HTTPException sends its ready Response or
 * `{"error": message}` with its status; anything else is a logged 500 with a generic body. The log has the error's
 * name (its message may quote input) and the path's first segment (in CALLER_AUTH=path mode the second is a secret).
 */
export function createErrorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof HTTPException)
      return err.res === undefined ? c.json({ error: err.message }, err.status) : err.getResponse();
    const first = /^\/[^/]{0,32}/.exec(c.req.path)?.[0] ?? "/";
    const path = c.req.path.length > first.length ? `${first}/…` : first;
    logger.log("error", "unhandled error", { method: c.req.method, path, error: err.name });
    return c.json({ error: "internal error" }, 500);
  };
}
