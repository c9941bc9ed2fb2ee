/**
 * The Node server's request listener: every request goes to the HTTP surface (functions/surface.ts) straight from
 * Node's request and response objects, with no web Request, Response or stream per request.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { concatBytes, unreadableBody, type BodyLimit } from "../../shared/http/body-limit.ts";
import { jsonReply, type HttpError, type HttpReply } from "../../shared/http/reply.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { decodePath, matchRoute, type Surface, type SurfaceCall } from "../surface.ts";
import { readSocketCertificate } from "./client-certificate.ts";

export interface NodeListenerOptions {
  surface: Surface;
  functions: readonly FunctionName[];
  /** CALLER_AUTH=path: the functions and /metrics also answer at `/<name>/<secret>`. */
  pathMode: boolean;
}

/** A request listener answering every path through `surface` (404 for paths it does not route). */
export function createNodeListener(options: NodeListenerOptions): RequestListener {
  const { surface, functions, pathMode } = options;
  return (req, res) => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = decodePath(query === -1 ? url : url.slice(0, query));
    let bodyRead = false;
    const call: SurfaceCall = {
      method: req.method ?? "GET",
      path,
      timeout: query === -1 ? undefined : (new URLSearchParams(url.slice(query + 1)).get("timeout") ?? undefined),
      header: (name) => readHeader(req, name),
      clientCertificate: () => readSocketCertificate(req.socket),
      readBody: async (limit) => {
        const bytes = await readNodeBody(req, limit);
        bodyRead = true;
        return bytes;
      },
    };
    surface(matchRoute(path, functions, pathMode), call).then(
      (reply) => writeReply(res, reply, bodyRead || req.complete),
      // The surface answers its own failures; this is a last guard, so a request is never left hanging.
      () => writeReply(res, jsonReply(500, { error: "internal error" }), false),
    );
  };
}

/**
 * A header as web Headers give it: every field of that name, joined by ", " (Node's `req.headers` keeps only the
 * first Authorization or Content-Type, so a request with two would read differently here than on the Hono adapter).
 */
function readHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/**
 * The whole body within `limit`: a declared length over it is refused before reading; the bytes are counted as they
 * arrive and reading stops at the limit (413); a body that breaks off is a 400.
 */
function readNodeBody(req: IncomingMessage, limit: BodyLimit): Promise<Uint8Array | undefined> {
  limit.checkDeclared(readHeader(req, "content-length"));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: HttpError) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("aborted", onError).off("close", onClose);
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      try {
        limit.checkRead(size);
      } catch (error) {
        stop(error as HttpError);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(size === 0 ? undefined : concatBytes(chunks, size));
    const onError = () => stop(unreadableBody());
    // A connection that goes away mid-body may only close: the review must still settle (and its deadline clear).
    const onClose = () => {
      if (!req.complete) onError();
    };
    req.on("data", onData).once("end", onEnd).once("error", onError).once("aborted", onError).once("close", onClose);
  });
}

/** Writes the reply; a connection whose body was not read to the end is closed after it, not read further. */
function writeReply(res: ServerResponse, reply: HttpReply, bodyRead: boolean): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string | number> = { ...reply.headers, "content-length": Buffer.byteLength(reply.body) };
  if (!bodyRead) headers["connection"] = "close";
  res.writeHead(reply.status, headers).end(reply.body);
}
