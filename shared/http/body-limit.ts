import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";

export interface BodyLimitOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
}

/**
 * Buffers the request body, refusing it with 413 once it passes `maxBytes`. A declared Content-Length over the
 * limit is refused before reading; the bytes are counted either way, since a chunked body has no length
 * (RFC 9112 section 6.1) and a declared one is only as good as the runtime that framed it. Hono's own
 * bodyLimit trusts Content-Length when present. An unreadable body (the caller went away) is a 400.
 * @throws TypeError when `maxBytes` is not a positive integer.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const { maxBytes } = options;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new TypeError("maxBytes must be a positive integer");
  const tooLarge = () => new HTTPException(413, { message: `request body exceeds ${maxBytes} bytes` });
  return async (c, next) => {
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > maxBytes) throw tooLarge();
    const body = c.req.raw.body;
    if (body === null) return next();
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          void reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        chunks.push(value);
      }
    } catch (error) {
      if (error instanceof HTTPException) throw error;
      throw new HTTPException(400, { message: "the request body could not be read" });
    }
    const buffer = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      buffer.set(chunk, offset);
      offset += chunk.byteLength;
    }
    c.req.raw = new Request(c.req.raw, { body: buffer });
    await next();
  };
}
