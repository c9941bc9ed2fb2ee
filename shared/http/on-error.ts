import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";

/**
 * HTTP-level failures only (the request is not a usable review): HTTPException keeps its status and text (or
 * its ready Response); anything else is a logged 500 with a generic body. Admission outcomes never come
 * through here. The log names the method and the path's first segment only: in CALLER_AUTH=path mode the
 * second segment is the secret.
 */
export function createErrorHandler(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof HTTPException) return err.res ?? c.json({ error: err.message }, err.status);
    logger.log("error", "unhandled error", { method: c.req.method, path: redactPath(c.req.path), error: err.name });
    return c.json({ error: "internal error" }, 500);
  };
}

/** `/expand/<anything>` becomes `/expand/…`: the first segment (at most 32 characters) and no more. */
export function redactPath(path: string): string {
  const match = /^\/[^/]{0,32}/.exec(path);
  const first = match?.[0] ?? "/";
  return path.length > first.length ? `${first}/…` : first;
}
