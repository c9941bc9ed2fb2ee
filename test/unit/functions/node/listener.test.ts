/**
 * The Node server's listener answers every request as the Hono app does: both go through the one surface, but each
 * reads the request its own way (Node's raw headers, path and body here; a web Request there). The same requests,
 * over real HTTP to the listener and through `app.request`, must get the same status, headers and body.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeListener } from "../../../../functions/node/listener.ts";
import { nodeListenerOf, serveListener } from "../../../../functions/node/server.ts";
import { createSurface, type Surface } from "../../../../functions/surface.ts";
import type { HttpReply } from "../../../../shared/http/reply.ts";
import type { CallerAuthOptions } from "../../../../shared/http/caller-auth.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { httpProbes, PARITY_SECRET as SECRET, PARITY_TOKEN as TOKEN, type Probe } from "../../../support/http-probes.ts";

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** The headers both adapters must agree on (Node adds date, connection and keep-alive, Hono none). */
const COMPARED = ["content-type", "allow", "www-authenticate", "retry-after"];

function pick(get: (name: string) => string | undefined): Record<string, string | undefined> {
  return Object.fromEntries(COMPARED.map((name) => [name, get(name)]));
}

function overHttp(port: number, probe: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Raw pairs, so a name may repeat; Node then adds no Host header of its own.
    const length = probe.body === undefined || probe.chunked === true ? [] : [["content-length", String(Buffer.byteLength(probe.body))]];
    const headers = [["host", `127.0.0.1:${port}`], ...length, ...(probe.headers ?? [])].flat();
    const req = httpRequest({ host: "127.0.0.1", port, method: probe.method, path: probe.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const value = (name: string) => {
          const v = res.headers[name];
          return Array.isArray(v) ? v.join(", ") : v;
        };
        resolve({ status: res.statusCode ?? 0, headers: pick(value), body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(probe.body);
  });
}

async function throughHono(app: { request: (path: string, init: RequestInit) => Response | Promise<Response> }, probe: Probe): Promise<Answer> {
  const headers = new Headers();
  for (const [name, value] of probe.headers ?? []) headers.append(name, value);
  const body = probe.body === undefined ? undefined : probe.chunked ? new Blob([probe.body]).stream() : probe.body;
  const res = await app.request(probe.path, { method: probe.method, headers, ...(body === undefined ? {} : { body, duplex: "half" }) });
  return { status: res.status, headers: pick((name) => res.headers.get(name) ?? undefined), body: probe.method === "HEAD" ? "" : await res.text() };
}

describe.each<{ name: string; callerAuth: CallerAuthOptions; auth: [string, string][]; prefix: (fn: string) => string }>([
  { name: "bearer", callerAuth: { mode: "bearer", tokens: [TOKEN] }, auth: [["authorization", `Bearer ${TOKEN}`]], prefix: (fn) => `/${fn}` },
  { name: "path", callerAuth: { mode: "path", secrets: [SECRET] }, auth: [], prefix: (fn) => `/${fn}/${SECRET}` },
])("the Node listener and the Hono app, CALLER_AUTH=$name", ({ callerAuth, auth, prefix }) => {
  const { app, deps } = createCallerAuthTestApp(callerAuth);
  let running: Awaited<ReturnType<typeof serveListener>>;

  beforeAll(async () => {
    running = await serveListener(nodeListenerOf(deps), { port: 0, hostname: "127.0.0.1" });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => running.server.close(() => resolve()));
  });

  it.each(httpProbes(auth, prefix).map((probe) => [`${probe.method} ${probe.path.slice(0, 60)}${probe.chunked ? " (chunked)" : ""}`, probe] as const))(
    "answer %s alike",
    async (_name, probe) => {
      const [node, hono] = [await overHttp(running.port, probe), await throughHono(app, probe)];
      expect(node).toEqual(hono);
    },
  );

  it("answers a path secret or plain path as the other mode expects (no probe is a 404 by accident)", async () => {
    const [first] = httpProbes(auth, prefix);
    const answer = await overHttp(running.port, first!);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ response: { allowed: true } });
  });
});

describe("the Node listener, when the caller goes away mid-body", () => {
  it("settles the review with a 400 (the body could not be read), so its deadline is cleared", async () => {
    const { deps } = createCallerAuthTestApp({ mode: "none" });
    const surface = createSurface(deps);
    let settle: (reply: HttpReply) => void = () => undefined;
    const settled = new Promise<HttpReply>((resolve) => (settle = resolve));
    const watched: Surface = (route, call) => surface(route, call).then((reply) => (settle(reply), reply));
    const running = await serveListener(createNodeListener({ surface: watched, functions: deps.functions, pathMode: false }), { port: 0, hostname: "127.0.0.1" });
    try {
      const socket = connect(running.port, "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write("POST /expand HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"kind\":");
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      const reply = await Promise.race([settled, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000))]);
      expect(reply?.status).toBe(400);
      expect(JSON.parse(reply!.body)).toEqual({ error: "the request body could not be read" });
    } finally {
      await new Promise<void>((resolve) => running.server.close(() => resolve()));
    }
  });
});
