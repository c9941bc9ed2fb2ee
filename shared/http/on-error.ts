import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";
import { jsonReply, type HttpReply } from "./reply.ts";

/**
 * HTTP-level failures only (the request is not a usable review): HTTPException keeps its status and text (or
 * its ready Response); anything else is a logged 500 with a generic body. Admission outcomes never come
 * through here. The log names the method and the path's first segment only: in CALLER_AUTH=path mode the
 * second segment is the secret.
 */
export function createErrorHandler(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof HTTPException) return err.res ?? c.json({ error: err.message }, err.status);
    const reply = unhandledError(logger, c.req.method, c.req.path, err);
    return c.body(reply.body, 500, reply.headers);
  };
}

/**
 * Our own failure while answering `method path`: logged with the error's name and the redacted path only (its
 * message may quote input), answered with a generic 500.
 */
export function unhandledError(logger: Logger, method: string, path: string, error: unknown): HttpReply {
  logger.log("error", "unhandled error", { method, path: redactPath(path), error: error instanceof Error ? error.name : typeof error });
  return jsonReply(500, { error: "internal error" });
}

/** `/expand/<anything>` becomes `/expand/…`: the first segment (at most 32 characters) and no more. */
export function redactPath(path: string): string {
  const match = /^\/[^/]{0,32}/.exec(path);
  const first = match?.[0] ?? "/";
  return path.length > first.length ? `${first}/…` : first;
}
