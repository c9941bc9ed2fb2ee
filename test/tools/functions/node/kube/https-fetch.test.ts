import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpsKubeFetch } from "../../../../../functions/node/kube/https-fetch.ts";
import { describeKubeTransport } from "./transport-suite.ts";

describeKubeTransport("createHttpsKubeFetch", createHttpsKubeFetch, { refusedHandshakeCode: /^ECONNRESET$/ });

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
    const transport = createHttpsKubeFetch();
    try {
      const response = await transport.fetch(`${url}/x`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: '{"a":1}',
      });
      expect(response.status).toBe(201);
      expect(response.headers.get("x-seen")).toBe("a, b");
      expect(JSON.parse(await response.text())).toEqual({
        method: "POST",
        body: '{"a":1}',
        accept: "application/json",
      });
      const empty = await transport.fetch(`${url}/empty`, { method: "GET" });
      expect(empty.status).toBe(204);
      expect(await empty.text()).toBe("");
    } finally {
      await transport.close();
    }
  });

  it("rejects with the signal's reason when a body stalls past the deadline, as fetch does", async () => {
    const transport = createHttpsKubeFetch();
    try {
      const outcome = await transport.fetch(`${url}/stall`, { method: "GET", signal: AbortSignal.timeout(200) }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(outcome).toMatchObject({ name: "TimeoutError" });
      await expect(transport.fetch(`${url}/x`, { method: "GET", signal: AbortSignal.abort() })).rejects.toMatchObject({
        name: "AbortError",
      });
    } finally {
      await transport.close();
    }
  });

  it("rejects a refused connection with a TypeError whose cause has the code", async () => {
    const transport = createHttpsKubeFetch();
    const error = await transport.fetch("https://127.0.0.1:1/x", { method: "GET" }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).cause).toMatchObject({ code: "ECONNREFUSED" });
    await transport.close();
  });
});
