/**
 * The one scripted stand-in for kube-apiserver, over HTTPS on 127.0.0.1. Without a script it serves the two calls
 * the functions make (`GET .../gmsacredentialspecs/<name>`, `POST .../namespaces/<ns>/localsubjectaccessreviews`)
 * from `credspecs` and `allowed`; a script answers every request instead. Before either, as in kube-apiserver, it
 * authenticates the Bearer token (`authenticate`, e.g. {@link verifyJwtWith}) and applies an injected fault. It
 * records every request, counts TLS connections, and stops and restarts on the same port for "connection refused".
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { V1LocalSubjectAccessReview } from "@kubernetes/client-node";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";

/** The two API calls the functions make. */
export type Endpoint = "credspec" | "lsar";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Name, value, name, value...: a header sent on several lines stays several. */
  rawHeaders: string[];
  body: string;
  /** CN of the client certificate, when one was presented. */
  clientCn?: string;
  endpoint: Endpoint | "other";
  /** The Bearer token, if any. */
  token?: string;
  /** What the server did: an HTTP status, or the kind of fault that kept it from answering whole. */
  answer: number | "reset" | "hang" | "stall-body";
}

export interface ScriptedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returns an answer, or "hang" to never answer. */
export type Script = (
  request: RecordedRequest,
  index: number,
) => ScriptedAnswer | "hang" | Promise<ScriptedAnswer | "hang">;

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
  /** 401 for the first token `authenticate` accepts after injection, and only that token. */
  | { kind: "reject-first-token" }
  /** 401 for every token. */
  | { kind: "reject-all-tokens" }
  /** 200 with a body that is not JSON. */
  | { kind: "non-json" }
  /** 200 LocalSubjectAccessReview without `status`. */
  | { kind: "lsar-without-status" }
  /** 200 GMSACredentialSpec without `credspec`. */
  | { kind: "credspec-without-contents" };

export interface KubeServer {
  url: string;
  port: number;
  /** Every request since start or the last {@link reset}, in arrival order. */
  requests: RecordedRequest[];
  /** Requests to `endpoint` since the last {@link reset}. */
  count(endpoint: Endpoint): number;
  /** Every token any request carried since start. */
  seenTokens(): Set<string>;
  /** TLS handshakes completed so far. */
  connections(): number;
  /** Codes of the TLS handshakes the server refused (`tlsClientError`), e.g. a missing client certificate. */
  refusedHandshakes: string[];
  script: Script;
  /** Applies `fault` to the given endpoints (default both) until {@link heal}. */
  inject(fault: Fault, endpoints?: readonly Endpoint[]): void;
  /** Back to healthy answers. */
  heal(): void;
  /** Forgets recorded requests. */
  reset(): void;
  /** Closes the listener and every connection: clients get ECONNREFUSED. */
  stop(): Promise<void>;
  /** Listens again on the same port (nothing to do while listening). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface KubeServerOptions extends ApiContents {
  cert: string;
  key: string;
  /** Require a client certificate signed by this CA. */
  clientCa?: string;
  /** Answers every request; absent, the server answers as the API from `credspecs` and `allowed`. */
  script?: Script;
  /** Accepts a Bearer token (false or a throw: 401 before anything else); absent, every caller is let in. */
  authenticate?: (token: string | undefined) => boolean | Promise<boolean>;
}

/** A Status body as kube-apiserver sends it. */
export function statusBody(code: number, reason: string, details?: Record<string, unknown>): unknown {
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: `server says ${reason}`,
    reason,
    code,
    ...(details ? { details } : {}),
  };
}

/** An `authenticate` that accepts JWTs signed by a key of `jwks` for `issuer` and `audience`. */
export function verifyJwtWith(
  jwks: JSONWebKeySet,
  claims: { issuer: string; audience: string },
): (token: string | undefined) => Promise<boolean> {
  const keys = createLocalJWKSet(jwks);
  return async (token) => (await jwtVerify(token ?? "", keys, claims)).payload !== undefined;
}

const CREDSPEC_PATH = /^\/apis\/windows\.k8s\.io\/v1\/gmsacredentialspecs\/([^/?]+)$/;
const LSAR_PATH = /^\/apis\/authorization\.k8s\.io\/v1\/namespaces\/[^/]+\/localsubjectaccessreviews$/;

function endpointOf(method: string, path: string): Endpoint | "other" {
  if (method === "GET" && CREDSPEC_PATH.test(path)) return "credspec";
  if (method === "POST" && LSAR_PATH.test(path)) return "lsar";
  return "other";
}

/** The GMSACredentialSpec a credspec request names: its name, and the object without `credspec`. */
function credSpecAt(path: string) {
  const name = decodeURIComponent(CREDSPEC_PATH.exec(path)?.[1] ?? "");
  return { name, object: { apiVersion: "windows.k8s.io/v1", kind: "GMSACredentialSpec", metadata: { name } } };
}

/** The API a request meets: credspecs by name, and access reviews answered from the allowed triples. */
export interface ApiContents {
  /** GMSACredentialSpec contents by name; any other name is NotFound. */
  credspecs?: Record<string, unknown>;
  /** "namespace/serviceAccount/credspec" triples allowed to `use`; absent, every service account may. */
  allowed?: readonly string[];
}

/** How a healthy kube-apiserver holding `api` answers `request` (also for in-memory fetches). */
export function answerAsApi(api: ApiContents, request: { method: string; path: string; body: string }): ScriptedAnswer {
  const endpoint = endpointOf(request.method, request.path);
  if (endpoint === "credspec") {
    const { name, object } = credSpecAt(request.path);
    const contents = api.credspecs?.[name];
    if (contents !== undefined) return { status: 200, body: { ...object, credspec: contents } };
    const details = { name, group: "windows.k8s.io", kind: "gmsacredentialspecs" };
    return { status: 404, body: statusBody(404, "NotFound", details) };
  }
  if (endpoint === "other") return { status: 404, body: statusBody(404, "NotFound") };
  const review = JSON.parse(request.body) as V1LocalSubjectAccessReview;
  const attributes = review.spec?.resourceAttributes;
  if (
    review.kind !== "LocalSubjectAccessReview" ||
    attributes?.verb !== "use" ||
    attributes.resource !== "gmsacredentialspecs"
  ) {
    return { status: 400, body: statusBody(400, "BadRequest") };
  }
  const triple = `${attributes.namespace}/${review.spec?.user?.split(":").at(-1)}/${attributes.name}`;
  const allowed = api.allowed?.includes(triple) ?? true;
  return {
    status: 201,
    body: { ...review, status: { allowed, ...(allowed ? {} : { reason: "no RBAC policy matched" }) } },
  };
}

function sendJson(res: ServerResponse, answer: ScriptedAnswer): void {
  res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
  res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
}

/** Answers `request` with `fault`; "pass" when the fault is about tokens only. */
function answerWithFault(
  fault: Fault,
  request: RecordedRequest,
  res: ServerResponse,
): RecordedRequest["answer"] | "pass" {
  switch (fault.kind) {
    case "reset":
    case "stall-body": {
      const whole = JSON.stringify({
        kind: request.endpoint === "credspec" ? "GMSACredentialSpec" : "LocalSubjectAccessReview",
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
    case "status": {
      const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "Retry-After": fault.retryAfter };
      sendJson(res, { status: fault.status, body: statusBody(fault.status, fault.reason), headers });
      return fault.status;
    }
    case "non-json":
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html><body>502 Bad Gateway from a proxy, served as 200</body></html>");
      return 200;
    case "lsar-without-status":
      sendJson(res, {
        status: 201,
        body: { apiVersion: "authorization.k8s.io/v1", kind: "LocalSubjectAccessReview", spec: {} },
      });
      return 201;
    case "credspec-without-contents":
      sendJson(res, { status: 200, body: credSpecAt(request.path).object });
      return 200;
    case "reject-first-token":
    case "reject-all-tokens":
      return "pass";
  }
}

/** Starts the server on 127.0.0.1 and an ephemeral port. */
export async function startKubeServer(options: KubeServerOptions): Promise<KubeServer> {
  let handshakes = 0;
  let port = 0;
  let server: Server | undefined;
  let rejectedToken: string | undefined;
  const requests: RecordedRequest[] = [];
  const refusedHandshakes: string[] = [];
  const tokens = new Set<string>();
  const faults = new Map<Endpoint, Fault>();
  const served = new Map<Endpoint, number>();

  function faultFor(endpoint: Endpoint | "other"): Fault | undefined {
    if (endpoint === "other") return undefined;
    const fault = faults.get(endpoint);
    if (fault?.kind !== "status" || fault.times === undefined) return fault;
    const used = served.get(endpoint) ?? 0;
    if (used >= fault.times) return undefined;
    served.set(endpoint, used + 1);
    return fault;
  }

  async function authenticated(request: RecordedRequest): Promise<boolean> {
    const fault = request.endpoint === "other" ? undefined : faults.get(request.endpoint)?.kind;
    if (fault === "reject-all-tokens") return false;
    const authenticate = options.authenticate;
    const accepted =
      authenticate === undefined ||
      (await Promise.resolve(request.token)
        .then(authenticate)
        .catch(() => false));
    if (!accepted || fault !== "reject-first-token" || request.token === undefined) return accepted;
    rejectedToken ??= request.token;
    return request.token !== rejectedToken;
  }

  async function handle(req: IncomingMessage, body: string, res: ServerResponse): Promise<void> {
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const request: RecordedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body,
      ...(peer?.subject?.CN === undefined ? {} : { clientCn: String(peer.subject.CN) }),
      endpoint: endpointOf(req.method ?? "", req.url ?? ""),
      ...(token === undefined ? {} : { token }),
      answer: 0,
    };
    requests.push(request);
    if (token !== undefined) tokens.add(token);
    if (!(await authenticated(request))) {
      sendJson(res, { status: 401, body: statusBody(401, "Unauthorized") });
      request.answer = 401;
      return;
    }
    const fault = faultFor(request.endpoint);
    const faulted = fault === undefined ? "pass" : answerWithFault(fault, request, res);
    if (faulted !== "pass") {
      request.answer = faulted;
      return;
    }
    const answer = await state.script(request, requests.length - 1);
    if (answer === "hang") {
      request.answer = "hang";
      return;
    }
    sendJson(res, answer);
    request.answer = answer.status;
  }

  async function start(): Promise<void> {
    if (server !== undefined) return;
    const next = createServer({
      cert: options.cert,
      key: options.key,
      ...(options.clientCa === undefined ? {} : { ca: options.clientCa, requestCert: true, rejectUnauthorized: true }),
    });
    next.on("secureConnection", () => handshakes++);
    next.on("tlsClientError", (error: NodeJS.ErrnoException) => refusedHandshakes.push(error.code ?? error.message));
    next.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => void handle(req, Buffer.concat(chunks).toString("utf8"), res));
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

  await start();
  const state: KubeServer = {
    url: `https://127.0.0.1:${port}`,
    port,
    requests,
    count: (endpoint) => requests.filter((request) => request.endpoint === endpoint).length,
    seenTokens: () => new Set(tokens),
    connections: () => handshakes,
    refusedHandshakes,
    script: options.script ?? ((request) => answerAsApi(options, request)),
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
      requests.length = 0;
    },
    stop,
    start,
    close: stop,
  };
  return state;
}
