import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";

export interface BodyLimitOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
}

/**
 * Buffers the request body, refusing it with 413 once it passes `maxBytes`, and leaves it as text in Hono's body
 * cache, so `c.req.json()` and `c.req.text()` downstream read it without another copy or Request. A declared
 * Content-Length over the limit is refused before reading. A declared one within it is read in one go: the
 * runtime's HTTP parser (Node's llhttp, workerd) delivers exactly that many bytes, and on Node @hono/node-server
 * then reads the socket directly instead of building a web Request and stream around it (about a fifth of the
 * server's CPU per review, test/bench/RESULTS.md); the length read is checked again, for runtimes that hand over
 * a Request they built themselves. A chunked body has no length (RFC 9112 section 6.1): its bytes are counted as
 * they arrive and reading stops at the limit. Hono's own bodyLimit trusts Content-Length when present. An
 * unreadable body (the caller went away) is a 400.
 * @throws TypeError when `maxBytes` is not a positive integer.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const { maxBytes } = options;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new TypeError("maxBytes must be a positive integer");
  const tooLarge = () => new HTTPException(413, { message: `request body exceeds ${maxBytes} bytes` });
  return async (c, next) => {
    const declaredHeader = c.req.header("content-length");
    const declared = Number(declaredHeader ?? "0");
    if (declared > maxBytes) throw tooLarge();
    let bytes: Uint8Array | undefined;
    try {
      bytes = declaredHeader === undefined ? await readCounted(c.req.raw.body, maxBytes, tooLarge) : new Uint8Array(await c.req.raw.arrayBuffer());
    } catch (error) {
      if (error instanceof HTTPException) throw error;
      throw new HTTPException(400, { message: "the request body could not be read" });
    }
    if (bytes === undefined) return next();
    if (bytes.byteLength > maxBytes) throw tooLarge();
    // Hono's body cache holds promises (HonoRequest's #cachedBody), though its BodyCache type names the values.
    (c.req.bodyCache as unknown as { text?: Promise<string> }).text = Promise.resolve(decoder.decode(bytes));
    await next();
  };
}

const decoder = new TextDecoder();

/** Reads a body of unknown length, stopping (413) as soon as it passes `maxBytes`; undefined without a body. */
async function readCounted(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => HTTPException,
): Promise<Uint8Array | undefined> {
  if (body === null) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
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
  if (chunks.length === 1) return chunks[0];
  const buffer = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    buffer.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return buffer;
}
