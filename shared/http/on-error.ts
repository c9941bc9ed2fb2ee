import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";

/**
 * HTTP-level failures only (the request is not a usable review): HTTPException keeps its status and text,
 * or its ready response; anything else is a logged 500 with a generic body. Admission outcomes never come through here.
 */
export function createErrorHandler(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof HTTPException) {
      // A ready response (caller auth's 401 with its WWW-Authenticate challenge, RFC 9110 section 11.6.1) goes out as built.
      return err.res === undefined ? c.json({ error: err.message }, err.status) : err.getResponse();
    }
    logger.log("error", "unhandled error", { path: c.req.path, error: err.name });
    return c.json({ error: "internal error" }, 500);
  };
}
