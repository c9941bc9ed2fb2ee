/**
 * A fault-injecting stand-in for kube-apiserver over HTTPS. Healthy, it serves the two calls the functions make
 * (`GET .../gmsacredentialspecs/<name>`, `POST .../namespaces/<ns>/localsubjectaccessreviews`) and accepts only
 * Bearer tokens it issued (fault-token.ts). A test switches its behaviour per endpoint with {@link FaultServer.inject}
 * and stops and restarts its listener on the same port for "connection refused".
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { verifyFaultToken } from "./fault-token.ts";

export type Endpoint = "credspec" | "lsar";

/** What the server does instead of answering well. */
export type Fault =
  /** Headers and half of a 200 body, then the socket is destroyed. */
  | { kind: "reset" }
  /** Reads the request and never answers. */
  | { kind: "hang" }
  /** Headers and half of a 200 body, then nothing more. */
  | { kind: "stall-body" }
  /** A Status answer, for the first `times` requests (absent: every request). */
  | { kind: "status"; status: number; reason: string; retryAfter?: string; times?: number }
  /** 401 for the first valid token seen after injection, and only that token. */
  | { kind: "reject-first-token" }
  /** 401 for every token. */
  | { kind: "reject-all-tokens" }
  /** 200 with a body that is not JSON. */
  | { kind: "non-json" }
  /** 200 LocalSubjectAccessReview without `status`. */
  | { kind: "lsar-without-status" }
  /** 200 GMSACredentialSpec without `credspec`. */
  | { kind: "credspec-without-contents" };

/** One request as the server saw it. */
export interface Call {
  endpoint: Endpoint | "other";
  method: string;
  /** The Bearer token, if any (checked against the issued ones). */
  token?: string;
  /** What the server did: an HTTP status, or the fault's kind. */
  answer: number | "reset" | "hang" | "stall-body";
}

export interface FaultServer {
  port: number;
  url: string;
  /** Holds the secret tokens are signed with; passed to the exec plugin. */
  secretFile: string;
  calls: Call[];
  /** Requests to `endpoint` since the last {@link reset}. */
  count(endpoint: Endpoint): number;
  /** Every token any request carried since start. */
  seenTokens(): Set<string>;
  /** Applies `fault` to the given endpoints (default both) until {@link heal}. */
  inject(fault: Fault, endpoints?: readonly Endpoint[]): void;
  /** Back to healthy answers. */
  heal(): void;
  /** Forgets recorded calls. */
  reset(): void;
  /** Closes the listener and every connection: clients get ECONNREFUSED. */
  stop(): Promise<void>;
  /** Listens again on the same port (nothing to do while listening). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The one GMSACredentialSpec the healthy server holds. */
export const CREDSPEC_NAME = "webapp1";

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function statusBody(code: number, reason: string, details?: Record<string, unknown>): unknown {
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason,
    code,
    message: `fault server: ${reason}`,
    ...(details ? { details } : {}),
  };
}

/** Starts the server on 127.0.0.1 and an ephemeral port; `dir` receives the secret file. */
export async function startFaultServer(options: {
  cert: string;
  key: string;
  dir: string;
  credspec: unknown;
}): Promise<FaultServer> {
  const secret = randomBytes(32).toString("hex");
  const secretFile = path.join(options.dir, "fault-server-secret");
  await writeFile(secretFile, secret, { mode: 0o600 });
  const calls: Call[] = [];
  const tokens = new Set<string>();
  const faults = new Map<Endpoint, Fault>();
  const served = new Map<Endpoint, number>();
  let rejectedToken: string | undefined;
  let port = 0;
  let server: Server | undefined;

  function faultFor(endpoint: Endpoint): Fault | undefined {
    const fault = faults.get(endpoint);
    if (fault?.kind !== "status" || fault.times === undefined) return fault;
    const used = served.get(endpoint) ?? 0;
    if (used >= fault.times) return undefined;
    served.set(endpoint, used + 1);
    return fault;
  }

  function healthy(endpoint: Endpoint, req: IncomingMessage, body: string, res: ServerResponse): number {
    if (endpoint === "credspec") {
      const name = decodeURIComponent(req.url?.split("/").at(-1) ?? "");
      if (name !== CREDSPEC_NAME) {
        sendJson(res, 404, statusBody(404, "NotFound", { name, group: "windows.k8s.io", kind: "gmsacredentialspecs" }));
        return 404;
      }
      sendJson(res, 200, {
        apiVersion: "windows.k8s.io/v1",
        kind: "GMSACredentialSpec",
        metadata: { name },
        credspec: options.credspec,
      });
      return 200;
    }
    const review = JSON.parse(body) as {
      kind?: string;
      spec?: { user?: string; resourceAttributes?: { verb?: string; resource?: string } };
    };
    const attributes = review.spec?.resourceAttributes;
    if (
      review.kind !== "LocalSubjectAccessReview" ||
      attributes?.verb !== "use" ||
      attributes.resource !== "gmsacredentialspecs"
    ) {
      sendJson(res, 400, statusBody(400, "BadRequest"));
      return 400;
    }
    sendJson(res, 201, { ...review, status: { allowed: true, reason: "fault server allows every service account" } });
    return 201;
  }

  function faulty(fault: Fault, endpoint: Endpoint, res: ServerResponse): Call["answer"] {
    switch (fault.kind) {
      case "reset":
      case "stall-body": {
        const whole = JSON.stringify({
          kind: endpoint === "credspec" ? "GMSACredentialSpec" : "LocalSubjectAccessReview",
          padding: "x".repeat(512),
        });
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(whole)) });
        res.write(whole.slice(0, whole.length / 2), () => {
          if (fault.kind === "reset") res.socket?.destroy();
        });
        return fault.kind;
      }
      case "hang":
        return "hang";
      case "status":
        sendJson(
          res,
          fault.status,
          statusBody(fault.status, fault.reason),
          fault.retryAfter === undefined ? {} : { "Retry-After": fault.retryAfter },
        );
        return fault.status;
      case "non-json":
        res.writeHead(200, { "Content-Type": "text/html" });
        res.end("<html><body>502 Bad Gateway from a proxy, served as 200</body></html>");
        return 200;
      case "lsar-without-status":
        sendJson(res, 201, { apiVersion: "authorization.k8s.io/v1", kind: "LocalSubjectAccessReview", spec: {} });
        return 201;
      case "credspec-without-contents":
        sendJson(res, 200, {
          apiVersion: "windows.k8s.io/v1",
          kind: "GMSACredentialSpec",
          metadata: { name: CREDSPEC_NAME },
        });
        return 200;
      case "reject-first-token":
      case "reject-all-tokens":
        throw new Error(`${fault.kind} is handled with authentication`);
    }
  }

  function handle(req: IncomingMessage, body: string, res: ServerResponse): void {
    const method = req.method ?? "";
    const url = req.url ?? "";
    const endpoint: Call["endpoint"] =
      method === "GET" && /^\/apis\/windows\.k8s\.io\/v1\/gmsacredentialspecs\/[^/?]+$/.test(url)
        ? "credspec"
        : method === "POST" &&
            /^\/apis\/authorization\.k8s\.io\/v1\/namespaces\/[^/]+\/localsubjectaccessreviews$/.test(url)
          ? "lsar"
          : "other";
    const authorization = req.headers.authorization ?? "";
    const token = authorization.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : undefined;
    const call: Call = { endpoint, method, ...(token === undefined ? {} : { token }), answer: 0 };
    calls.push(call);
    if (token !== undefined) tokens.add(token);
    // Authentication comes first, as in kube-apiserver.
    let authenticated = token !== undefined && verifyFaultToken(secret, token) !== undefined;
    const authFault = endpoint === "other" ? undefined : faults.get(endpoint)?.kind;
    if (authenticated && authFault === "reject-first-token") {
      rejectedToken ??= token;
      authenticated = token !== rejectedToken;
    }
    if (authFault === "reject-all-tokens") authenticated = false;
    if (!authenticated) {
      sendJson(res, 401, statusBody(401, "Unauthorized"));
      call.answer = 401;
      return;
    }
    if (endpoint === "other") {
      sendJson(res, 404, statusBody(404, "NotFound"));
      call.answer = 404;
      return;
    }
    const fault = faultFor(endpoint);
    const authOnly = fault?.kind === "reject-first-token" || fault?.kind === "reject-all-tokens";
    call.answer = fault === undefined || authOnly ? healthy(endpoint, req, body, res) : faulty(fault, endpoint, res);
  }

  async function listen(): Promise<void> {
    if (server !== undefined) return;
    const next = createServer({ cert: options.cert, key: options.key });
    next.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  }

  async function stop(): Promise<void> {
    const current = server;
    server = undefined;
    if (current === undefined) return;
    await new Promise<void>((resolve) => {
      current.close(() => resolve());
      current.closeAllConnections();
    });
  }

  await listen();
  const state: FaultServer = {
    port,
    url: `https://127.0.0.1:${port}`,
    secretFile,
    calls,
    count: (endpoint) => calls.filter((call) => call.endpoint === endpoint).length,
    seenTokens: () => new Set(tokens),
    inject(fault, endpoints = ["credspec", "lsar"]) {
      for (const endpoint of endpoints) {
        faults.set(endpoint, fault);
        served.delete(endpoint);
      }
      rejectedToken = undefined;
    },
    heal() {
      faults.clear();
      served.clear();
      rejectedToken = undefined;
    },
    reset() {
      calls.length = 0;
    },
    stop,
    start: listen,
    close: stop,
  };
  return state;
}
