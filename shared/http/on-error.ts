import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";

/**
 * HTTP-level failures only (the request is not a usable review): HTTPException keeps its status and text;
 * anything else is a logged 500 with a generic body. Admission outcomes never come through here.
 */
export function createErrorHandler(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof HTTPException) return c.json({ error: err.message }, err.status);
    logger.log("error", "unhandled error", { path: c.req.path, error: err.name });
    return c.json({ error: "internal error" }, 500);
  };
}
