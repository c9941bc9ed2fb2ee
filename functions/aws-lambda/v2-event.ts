/**
 * Payload format 2.0 events (Function URLs, HTTP APIs) straight to the HTTP surface, without the Hono adapter's web
 * Request: read as that adapter reads them (rawPath, rawQueryString, the headers, a body that may be base64,
 * Content-Length set to the body's real length), answered in its result's shape.
 */
import type { APIGatewayProxyResult, LambdaEvent } from "hono/aws-lambda";
import type { FunctionName } from "../../shared/config/index.ts";
import type { HttpReply } from "../../shared/http/reply.ts";
import { decodePath, matchRoute, type Route, type Surface, type SurfaceCall } from "../surface.ts";

/** A payload 2.0 event, as far as it is read here. */
interface V2Event {
  version: "2.0";
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { http: { method: string } };
}

function isV2Event(event: LambdaEvent): event is LambdaEvent & V2Event {
  const candidate = event as Partial<V2Event>;
  return candidate.version === "2.0" && typeof candidate.rawPath === "string" && typeof candidate.requestContext?.http?.method === "string";
}

/**
 * The route and request of a payload 2.0 event (the route undefined for an unknown path); undefined for other
 * payloads (1.0, ALB), which the Hono adapter reads.
 */
function surfaceCallOfEvent(event: LambdaEvent, functions: readonly FunctionName[], pathMode: boolean): { route: Route | undefined; call: SurfaceCall } | undefined {
  if (!isV2Event(event)) return undefined;
  const path = decodePath(event.rawPath);
  const route = matchRoute(path, functions, pathMode);
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded === true ? "base64" : "utf8") : undefined;
  // Payload 2.0 names are lower-case already; a hand-made event may not be.
  const headers = new Map(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const call: SurfaceCall = {
    method: event.requestContext.http.method,
    path,
    timeout: event.rawQueryString ? (new URLSearchParams(event.rawQueryString).get("timeout") ?? undefined) : undefined,
    header: (name) => (name === "content-length" && body !== undefined ? String(body.byteLength) : headers.get(name)),
    clientCertificate: () => undefined,
    readBody: (limit) => {
      limit.checkDeclared(body === undefined ? undefined : String(body.byteLength));
      return Promise.resolve(body);
    },
  };
  return { route, call };
}

/**
 * The answer to a payload 2.0 event through `surface`, in the Lambda result's shape; undefined for other payloads
 * (1.0, ALB), which the Hono adapter reads.
 */
export function answerV2Event(event: LambdaEvent, surface: Surface, functions: readonly FunctionName[], pathMode: boolean): Promise<APIGatewayProxyResult> | undefined {
  const v2 = surfaceCallOfEvent(event, functions, pathMode);
  if (v2 === undefined) return undefined;
  const { route, call } = v2;
  return surface(route, call).then((reply) => lambdaResultOf(reply, call.method));
}

/** The Lambda result of a reply to `method` (our replies are text, never base64; HEAD gets no body, as from Hono). */
function lambdaResultOf(reply: HttpReply, method: string): APIGatewayProxyResult {
  return { body: method === "HEAD" ? "" : reply.body, statusCode: reply.status, isBase64Encoded: false, headers: { ...reply.headers } };
}
