/** The Node server's limits against slow-loris: connections that never finish their headers or TLS handshake. */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApp } from "../../../../functions/node/server.ts";
import { createTestApp } from "../../../support/app.ts";
import { createTestPki } from "../../../support/test-pki.ts";

type Served = Awaited<ReturnType<typeof serveApp>>;

/** Opens a raw connection, writes `bytes`, and resolves with the ms until the server closes it (capped at 20 s). */
async function msUntilClosed(port: number, bytes: string): Promise<number> {
  const socket: Socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.on("data", () => undefined);
  socket.on("error", () => undefined);
  const started = Date.now();
  if (bytes !== "") socket.write(bytes);
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now() - started)));
  const limit = new Promise<number>((resolve) => setTimeout(() => resolve(20_000), 20_000));
  const ms = await Promise.race([closed, limit]);
  socket.destroy();
  return ms;
}

describe("the Node server's connection limits", () => {
  let plain: Served;
  let tls: Served;

  beforeAll(async () => {
    const { app } = createTestApp();
    plain = await serveApp(app, { port: 0, hostname: "127.0.0.1" });
    const { server } = await createTestPki();
    tls = await serveApp(app, {
      port: 0,
      hostname: "127.0.0.1",
      tls: { cert: Buffer.from(server.cert), key: Buffer.from(server.key) },
    });
  });
  afterAll(async () => {
    for (const served of [plain, tls]) await new Promise<void>((resolve) => served.server.close(() => resolve()));
  });

  it("closes a connection that sends half a header within the 5 s headers timeout (plus the 1 s check)", async () => {
    const stalled = msUntilClosed(plain.port, "POST /expand HTTP/1.1\r\nhost: x\r\ncontent-ty");
    // Real requests are still answered while it stalls.
    expect((await fetch(`http://127.0.0.1:${plain.port}/healthz`)).status).toBe(200);
    const ms = await stalled;
    expect(ms).toBeGreaterThanOrEqual(4_500);
    expect(ms).toBeLessThan(7_500);
  }, 15_000);

  it("closes a connection that never starts its TLS handshake within the 5 s handshake timeout", async () => {
    const ms = await msUntilClosed(tls.port, "");
    expect(ms).toBeGreaterThanOrEqual(4_500);
    expect(ms).toBeLessThan(7_500);
  }, 15_000);

  it("sets the timeouts; the connection guard, not Node's maxConnections, counts connections (connection-guard.test.ts)", () => {
    expect(plain.server.maxConnections).toBeUndefined();
    expect(plain.server.headersTimeout).toBe(5_000);
    expect(plain.server.requestTimeout).toBe(30_000);
    expect(plain.server.keepAliveTimeout).toBe(120_000);
  });
});
