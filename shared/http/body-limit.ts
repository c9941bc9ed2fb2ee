import { HttpError } from "./reply.ts";

/**
 * The body limit's two checks, the same on every runtime: a declared Content-Length over `maxBytes` is refused
 * (413) before anything is read, and the bytes read are counted, so a body longer than it declared, or chunked
 * (RFC 9112 section 6.1: no length), is refused as soon as it passes the limit.
 * @throws TypeError when `maxBytes` is not a positive integer.
 */
export function createBodyLimit(maxBytes: number): BodyLimit {
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new TypeError("maxBytes must be a positive integer");
  const tooLarge = () => new HttpError(413, `request body exceeds ${maxBytes} bytes`);
  return {
    maxBytes,
    checkDeclared(contentLength) {
      if (Number(contentLength ?? "0") > maxBytes) throw tooLarge();
    },
    checkRead(size) {
      if (size > maxBytes) throw tooLarge();
    },
  };
}

export interface BodyLimit {
  maxBytes: number;
  /** @throws HttpError 413 when the declared Content-Length is over the limit. */
  checkDeclared(contentLength: string | undefined): void;
  /** @throws HttpError 413 once `size` bytes read are over the limit. */
  checkRead(size: number): void;
}

/** The error for a body that could not be read (the caller went away): 400. */
export function unreadableBody(): HttpError {
  return new HttpError(400, "the request body could not be read");
}

/**
 * Reads a web Request's body within `limit` (Workers, and the Hono routes on Node, Lambda and Azure): undefined
 * without a body. A declared length within the limit is read in one go (the runtime's HTTP parser delivers exactly
 * that many bytes), then checked again, for runtimes that hand over a Request they built themselves.
 * @throws HttpError 413 over the limit, 400 when the body cannot be read.
 */
export async function readRequestBody(request: Request, limit: BodyLimit): Promise<Uint8Array | undefined> {
  const declared = request.headers.get("content-length") ?? undefined;
  limit.checkDeclared(declared);
  let bytes: Uint8Array | undefined;
  try {
    bytes = declared === undefined ? await readCounted(request.body, limit) : new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw unreadableBody();
  }
  if (bytes !== undefined) limit.checkRead(bytes.byteLength);
  return bytes;
}

/** Reads a body of unknown length, stopping (413) as soon as it passes the limit; undefined without a body. */
async function readCounted(body: ReadableStream<Uint8Array> | null, limit: BodyLimit): Promise<Uint8Array | undefined> {
  if (body === null) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    try {
      limit.checkRead(size);
    } catch (error) {
      void reader.cancel().catch(() => undefined);
      throw error;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** One array of `size` bytes from `chunks` (no copy for one chunk). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const buffer = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    buffer.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return buffer;
}
