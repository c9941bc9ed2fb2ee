/**
 * The API-server transport of the Node-based targets (https-fetch.ts), run against local HTTPS servers, a CONNECT
 * proxy and throw-away certificates, and as fetch against a plain http:// server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpsKubeFetch, type KeepAliveFetchOptions } from "../../../../../functions/node/kube/https-fetch.ts";
import { createKubeGmsaClient } from "../../../../../shared/kube/client.ts";
import { startConnectProxy } from "../../../../support/connect-proxy.ts";
import { rejectionOf } from "../../../../support/no-secrets.ts";
import { startKubeServer, type KubeServer } from "../../../../support/kube-server.ts";
import { createTestPki, type TestPki } from "../../../../support/test-pki.ts";

let pki: TestPki;
let server: KubeServer;
let internal: KubeServer;
let mtls: KubeServer;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  const script = () => ({ status: 200, body: { credspec: { ok: true } } });
  server = await startKubeServer({ ...pki.server, script });
  internal = await startKubeServer({ ...pki.internalServer, script });
  mtls = await startKubeServer({ ...pki.server, clientCa: pki.caPem, script });
});

afterAll(async () => {
  await Promise.all(opened.map((transport) => transport.close()));
  await Promise.all([server.close(), internal.close(), mtls.close()]);
  await pki.cleanup();
});

/** A transport closed after the file. */
function transportOf(options?: KeepAliveFetchOptions) {
  const transport = createHttpsKubeFetch(options);
  opened.push(transport);
  return transport;
}

function clientFor(target: KubeServer, options: KeepAliveFetchOptions) {
  const transport = transportOf(options);
  return createKubeGmsaClient({
    server: target.url,
    fetch: transport.fetch,
    credSpecCacheTtlMs: 0,
    retryDelayMs: 10,
  });
}

const call = () => ({ signal: AbortSignal.timeout(5_000) });

/** The client refused the server's certificate: OpenSSL's code depends on how the chain was sent. */
const UNTRUSTED_SERVER =
  /API server unreachable \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/;

describe("createHttpsKubeFetch", () => {
  it("reuses one TLS connection for many sequential calls", async () => {
    const before = server.connections();
    const client = clientFor(server, { ca: pki.caPem });
    for (let i = 0; i < 20; i++) {
      expect(await client.getCredSpecContents("webapp01", call())).toEqual({ ok: true });
      // A pool may mark a connection free one tick after its response ends (undici); reviews never come back-to-back.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.connections() - before).toBe(1);
  });

  it("serves concurrent calls from a bounded pool and keeps those connections", async () => {
    const before = server.connections();
    const client = clientFor(server, { ca: pki.caPem, connections: 4 });
    await Promise.all(Array.from({ length: 50 }, () => client.getCredSpecContents("webapp01", call())));
    const opened = server.connections() - before;
    expect(opened).toBeLessThanOrEqual(4);
    await Promise.all(Array.from({ length: 50 }, () => client.getCredSpecContents("webapp01", call())));
    expect(server.connections() - before).toBe(opened);
  });

  it.each([
    ["trusts the kubeconfig CA only: a server from another CA is refused", () => ({ ca: pki.otherCaPem })],
    ["does not trust a private CA without being told", () => ({})],
  ])("%s", async (_title, options) => {
    const error = await rejectionOf(clientFor(server, options()).getCredSpecContents("webapp01", call()));
    expect(error).toMatchObject({ code: "ERR_KUBE_API" });
    expect(error.message).toMatch(UNTRUSTED_SERVER);
  });

  it("accepts any certificate with insecure-skip-tls-verify", async () => {
    expect(await clientFor(server, { insecureSkipTlsVerify: true }).getCredSpecContents("webapp01", call())).toEqual({
      ok: true,
    });
  });

  it("checks the certificate against tls-server-name instead of the URL's host", async () => {
    expect(
      await clientFor(internal, { ca: pki.caPem, tlsServerName: "kube.internal" }).getCredSpecContents(
        "webapp01",
        call(),
      ),
    ).toEqual({ ok: true });
    const error = await rejectionOf(clientFor(internal, { ca: pki.caPem }).getCredSpecContents("webapp01", call()));
    expect(error.message).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
  });

  it("presents the kubeconfig client certificate", async () => {
    const client = clientFor(mtls, {
      ca: pki.caPem,
      clientCertificate: { certificate: pki.client.cert, key: pki.client.key },
    });
    await client.getCredSpecContents("webapp01", call());
    expect(mtls.requests.at(-1)?.clientCn).toBe("client");
    const refusedBefore = mtls.refusedHandshakes.length;
    await expect(clientFor(mtls, { ca: pki.caPem }).getCredSpecContents("webapp01", call())).rejects.toMatchObject({
      code: "ERR_KUBE_API",
    });
    // The server, not the transport, ended it: it refused the handshake for want of a certificate.
    expect(mtls.refusedHandshakes.slice(refusedBefore)).toContain("ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE");
  });

  it("presents a per-request certificate and opens a new pool when it changes", async () => {
    const transport = transportOf({ ca: pki.caPem });
    const before = mtls.connections();
    const get = (certificate: string, key: string) =>
      transport
        .fetch(`${mtls.url}/apis/windows.k8s.io/v1/gmsacredentialspecs/a`, { method: "GET" }, { certificate, key })
        .then((response) => response.text());
    await get(pki.client.cert, pki.client.key);
    await new Promise((resolve) => setImmediate(resolve));
    await get(pki.client.cert, pki.client.key);
    expect(mtls.connections() - before).toBe(1);
    const requestsBefore = mtls.requests.length;
    const error = await rejectionOf(get(pki.strangerClient.cert, pki.strangerClient.key));
    // A new pool for the new certificate, whose handshake the server refuses: it never sees a request.
    expect(error.cause).toMatchObject({ code: "ECONNRESET" });
    expect(mtls.connections() - before).toBe(1);
    expect(mtls.requests.length).toBe(requestsBefore);
  });

  it("never follows a redirect: a 302 to a server answering allowed is a 500 naming the status, and that server sees nothing", async () => {
    const lure = await startKubeServer({
      ...pki.server,
      script: () => ({ status: 200, body: { credspec: { forged: true }, status: { allowed: true } } }),
    });
    const redirecting = await startKubeServer({
      ...pki.server,
      script: (request) => ({ status: 302, headers: { Location: `${lure.url}${request.path}` } }),
    });
    try {
      const client = clientFor(redirecting, { ca: pki.caPem });
      const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };
      const review = await rejectionOf(client.canUseCredSpec(query, call()));
      expect(review).toMatchObject({ code: "ERR_KUBE_API" });
      expect(review.message).toMatch(/: API server answered 302, a redirect, which is never followed$/);
      const read = await rejectionOf(client.getCredSpecContents("webapp01", call()));
      expect(read.message).toMatch(/^reading GMSACredentialSpec "webapp01": API server answered 302, a redirect/);
      expect(redirecting.requests).toHaveLength(2);
      expect(lure.requests).toHaveLength(0);
    } finally {
      await Promise.all([lure.close(), redirecting.close()]);
    }
  });

  it("tunnels through proxy-url with CONNECT, still verifying the server and honouring tls-server-name", async () => {
    const proxy = await startConnectProxy();
    try {
      const client = clientFor(internal, { ca: pki.caPem, tlsServerName: "kube.internal", proxyUrl: proxy.url });
      expect(await client.getCredSpecContents("webapp01", call())).toEqual({ ok: true });
      await new Promise((resolve) => setImmediate(resolve));
      expect(await client.getCredSpecContents("webapp01", call())).toEqual({ ok: true });
      expect(proxy.tunnels).toEqual([`127.0.0.1:${internal.port}`]);
      const untrusted = clientFor(internal, {
        ca: pki.otherCaPem,
        tlsServerName: "kube.internal",
        proxyUrl: proxy.url,
      });
      const error = await rejectionOf(untrusted.getCredSpecContents("webapp01", call()));
      expect(error).toMatchObject({ code: "ERR_KUBE_API" });
      expect(error.message).toMatch(UNTRUSTED_SERVER);
    } finally {
      await proxy.close();
    }
  });
});

describe("createHttpsKubeFetch, as fetch", () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === "/stall") {
        // Headers and half a body, then nothing: only the caller's deadline ends the wait.
        response.writeHead(200, { "content-type": "application/json", "content-length": "100" });
        response.write('{"partial":');
        return;
      }
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (request.url === "/empty") {
          response.writeHead(204).end();
          return;
        }
        response.writeHead(201, { "content-type": "application/json", "x-seen": ["a", "b"] });
        response.end(
          JSON.stringify({
            method: request.method,
            body: Buffer.concat(chunks).toString("utf8"),
            accept: request.headers.accept,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends method, headers and body to a plain http:// server and answers status, headers and body", async () => {
    const transport = transportOf();
    const response = await transport.fetch(`${url}/x`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-seen")).toBe("a, b");
    expect(JSON.parse(await response.text())).toEqual({ method: "POST", body: '{"a":1}', accept: "application/json" });
    const empty = await transport.fetch(`${url}/empty`, { method: "GET" });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
  });

  it("rejects with the signal's reason when a body stalls past the deadline, as fetch does", async () => {
    const transport = transportOf();
    const stalled = transport.fetch(`${url}/stall`, { method: "GET", signal: AbortSignal.timeout(200) });
    expect(await rejectionOf(stalled)).toMatchObject({ name: "TimeoutError" });
    await expect(transport.fetch(`${url}/x`, { method: "GET", signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});
