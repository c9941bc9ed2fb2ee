import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";

/**
 * Refuses bodies that are not JSON (415). Parameters such as `charset=utf-8` are fine: the API server sends
 * `application/json`, proxies sometimes add a charset.
 */
export function requireJson(): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      throw new HTTPException(415, { message: "content type must be application/json" });
    }
    await next();
  };
}
