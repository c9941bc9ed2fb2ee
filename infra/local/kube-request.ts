/**
 * A minimal HTTPS client for the local scripts: node:https trusts one extra CA per request, with no
 * connection pool to set up or close (the functions' own keep-alive pool is functions/node/kube/https-fetch.ts).
 * (The functions themselves use shared/kube; this is only for setting up and checking the cluster.)
 */
import type { IncomingHttpHeaders } from "node:http";
import { request } from "node:https";

/** Where and as whom to call an API server. */
export interface KubeEndpoint {
  /** https URL of the API server, without a trailing slash. */
  server: string;
  /** PEM of the CA that signed the API server's certificate. */
  caPem: string;
  /** Bearer token; omitted for anonymous calls. */
  token?: string;
}

/** A response: status and body, parsed as JSON when it is JSON. */
export interface KubeResponse<T = unknown> {
  status: number;
  body: T;
  /** Response headers, lower-case names (e.g. `warning`: the admission warnings, RFC 7234 section 5.5). */
  headers: IncomingHttpHeaders;
}

/** Options for {@link kubeRequest}. */
export interface KubeRequestOptions {
  method?: string;
  /** Sent as JSON unless it is a string (then as-is, e.g. YAML for server-side apply). */
  body?: unknown;
  /** Defaults to `application/json`. */
  contentType?: string;
  /** Defaults to 30000. */
  timeoutMs?: number;
  /** Extra request headers, e.g. `Impersonate-User` (the endpoint's identity must be allowed to impersonate). */
  headers?: Record<string, string | string[]>;
}

/**
 * Calls `path` (with query) on the API server. Never throws for HTTP statuses; the caller decides.
 * @throws Error on transport failures and timeouts.
 */
export function kubeRequest<T = unknown>(
  endpoint: KubeEndpoint,
  path: string,
  options: KubeRequestOptions = {},
): Promise<KubeResponse<T>> {
  const { method = "GET", body, contentType = "application/json", timeoutMs = 30_000 } = options;
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const headers: Record<string, string | string[]> = { ...options.headers, accept: "application/json" };
  if (endpoint.token !== undefined) headers.authorization = `Bearer ${endpoint.token}`;
  if (payload !== undefined) headers["content-type"] = contentType;
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, endpoint.server), { method, headers, ca: endpoint.caPem, timeout: timeoutMs });
    req.once("timeout", () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    req.once("error", reject);
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("error", reject);
      res.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        if ((res.headers["content-type"] ?? "").startsWith("application/json")) {
          try {
            parsed = JSON.parse(text);
          } catch {
            // Keep the text: a truncated body is still worth showing in an error.
          }
        }
        resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: res.headers });
      });
    });
    req.end(payload);
  });
}

/**
 * Like {@link kubeRequest} but requires a 2xx status.
 * @throws Error naming the method, path, status and the Status message from the server.
 */
export async function kubeRequestOk<T = unknown>(
  endpoint: KubeEndpoint,
  path: string,
  options: KubeRequestOptions = {},
): Promise<T> {
  const response = await kubeRequest<T>(endpoint, path, options);
  if (response.status < 200 || response.status > 299) {
    const body = response.body as { message?: string } | string | undefined;
    const message = typeof body === "string" ? body.slice(0, 500) : (body?.message ?? JSON.stringify(body));
    throw new Error(`${options.method ?? "GET"} ${path}: HTTP ${response.status}: ${message}`);
  }
  return response.body;
}
