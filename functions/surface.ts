/**
 * The whole HTTP surface as plain functions of a request: the one router and every route's answer. The Hono app
 * (Workers, Lambda, Azure) hands every request here; the Node server calls it from Node's own request objects,
 * so it never builds a web Request or Response (nor loads Node's undici, about 5 MiB).
 */
import type { FunctionName } from "../shared/config/index.ts";
import { unhandledError } from "../shared/http/on-error.ts";
import { jsonReply, NOT_FOUND, type HttpReply } from "../shared/http/reply.ts";
import type { AppDeps } from "./app-deps.ts";
import type { ReviewCounters, ReviewRecorder } from "./metrics.ts";
import { createReviewEndpoint, type ReviewCall, type ReviewEndpoint } from "./review-endpoint.ts";

/** A request path, routed. */
export type Route =
  | { kind: "review"; fn: FunctionName; pathSecret: string | undefined }
  | { kind: "metrics"; pathSecret: string | undefined }
  | { kind: "healthz" | "readyz" | "version" };

/** One request, as an adapter reads it (the review endpoint's view; the body is only read for reviews). */
export type SurfaceCall = Omit<ReviewCall, "fn" | "pathSecret">;

/** Answers one request to a routed path (404 when `route` is undefined: {@link matchRoute} found none); never throws. */
export type Surface = (route: Route | undefined, call: SurfaceCall) => Promise<HttpReply>;

const OPEN_ROUTES = { "/healthz": "healthz", "/readyz": "readyz", "/version": "version" } as const;

/** Every path the surface answers for `functions` (in path mode, the protected ones also with a secret segment). */
export function surfacePaths(functions: readonly FunctionName[]): string[] {
  return [...Object.keys(OPEN_ROUTES), "/metrics", ...functions.map((fn) => `/${fn}`)];
}

/**
 * Routes a request path (percent-escapes already decoded, no query): `/healthz`, `/readyz`, `/version`, `/metrics`,
 * `/<function>` for each function served, and in path mode (CALLER_AUTH=path) `/metrics/<secret>` and
 * `/<function>/<secret>`, the secret one segment. Undefined for anything else (404).
 */
export function matchRoute(path: string, functions: readonly FunctionName[], pathMode: boolean): Route | undefined {
  const open = OPEN_ROUTES[path as keyof typeof OPEN_ROUTES] as (typeof OPEN_ROUTES)[keyof typeof OPEN_ROUTES] | undefined;
  if (open !== undefined) return { kind: open };
  const slash = path.indexOf("/", 1);
  const name = slash === -1 ? path.slice(1) : path.slice(1, slash);
  const secret = slash === -1 ? undefined : path.slice(slash + 1);
  if (secret !== undefined && (!pathMode || secret.length === 0 || secret.includes("/"))) return undefined;
  if (name === "metrics") return { kind: "metrics", pathSecret: secret };
  const fn = functions.find((f) => f === name);
  return fn === undefined ? undefined : { kind: "review", fn, pathSecret: secret };
}

/**
 * The answers: reviews by `endpoint` ({@link createReviewEndpoint}); /healthz `ok`; /readyz `ok`, or 503 once the
 * process is shutting down; /version the name, version and functions; /metrics behind the same caller check as
 * the reviews: the runtime's exposition (Prometheus text on the Node server), else the JSON counters. The open
 * routes and /metrics answer GET and HEAD only (404 otherwise, as for unknown paths).
 * @throws TypeError when the caller auth options, body limit or default timeout cannot work.
 */
export function createSurface(deps: AppDeps, endpoint: ReviewEndpoint = createReviewEndpoint(deps)): Surface {
  return async (route, call) => {
    if (route === undefined) return NOT_FOUND();
    if (route.kind === "review") return endpoint({ ...call, fn: route.fn, pathSecret: route.pathSecret });
    if (call.method !== "GET" && call.method !== "HEAD") return NOT_FOUND();
    switch (route.kind) {
      case "healthz":
        return textReply(200, "ok");
      case "readyz":
        return deps.ready?.() === false ? textReply(503, "shutting down") : textReply(200, "ok");
      case "version":
        return jsonReply(200, { name: "gmsa-webhooks", version: deps.version, functions: deps.functions });
      case "metrics": {
        const refused = await endpoint.checkCaller({ ...call, pathSecret: route.pathSecret });
        if (refused !== undefined) return refused;
        try {
          if (deps.exposition === undefined) return jsonReply(200, { ...snapshotOf(deps.counters), ...deps.extraMetrics?.() });
          const { contentType, body } = await deps.exposition();
          return { status: 200, headers: { "content-type": contentType }, body };
        } catch (error) {
          return unhandledError(deps.logger, call.method, call.path, error);
        }
      }
    }
  };
}

/** Plain text, with the content type Hono's `c.text` writes. */
function textReply(status: number, body: string): HttpReply {
  return { status, headers: { "content-type": "text/plain;charset=UTF-8" }, body };
}

function snapshotOf(counters: ReviewRecorder | ReviewCounters): Record<string, number> {
  return "snapshot" in counters ? counters.snapshot() : {};
}

/**
 * Decodes percent-escapes in a raw path as the Hono router does (each run of valid escapes with decodeURI, so
 * `%2F` stays an escape and a malformed run stays as it is).
 */
export function decodePath(path: string): string {
  if (!path.includes("%")) return path;
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURI(run);
    } catch {
      return run;
    }
  });
}
