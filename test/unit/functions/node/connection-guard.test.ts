/** The connection guard on a loopback HTTP server of its own, with small limits. */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { guardConnections } from "../../../../functions/node/connection-guard.ts";

const LIFETIME_MS = 400;
let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose `/review` proves its connection (as caller auth does) and whose other paths do not. */
async function serve(maxConnections: number, perSource: number, maxUnproven = maxConnections) {
  const proven: { guard?: ReturnType<typeof guardConnections> } = {};
  server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    if (req.url === "/review") proven.guard?.prove(req, res);
    res.end("ok");
  });
  const guard = (proven.guard = guardConnections(server, {
    maxConnections,
    maxUnproven,
    perSource,
    unprovenLifetimeMs: LIFETIME_MS,
  }));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, counts: guard.counts };
}

/** A client connection from `127.0.0.<n>`, with its answers as text and whether it is closed. */
async function open(port: number, n: number) {
  const socket = connect({ host: "127.0.0.1", port, localAddress: `127.0.0.${n}` });
  sockets.push(socket);
  const state = { text: "", closed: false };
  socket.on("data", (chunk: Buffer) => (state.text += chunk.toString()));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      state.closed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const ask = async (path: string) => {
    state.text = "";
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    while (!state.text.includes("ok") && !state.closed) await new Promise((resolve) => setTimeout(resolve, 5));
    return state.text;
  };
  return { state, closed, ask };
}

const settle = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

describe("guardConnections", () => {
  it("answers an unproven request with Connection: close and closes the connection", async () => {
    const { port } = await serve(8, 4);
    const client = await open(port, 2);
    expect(await client.ask("/healthz")).toMatch(/^connection: close/im);
    await client.closed;
  });

  it("keeps a proven connection alive past the unproven lifetime, later unproven requests on it included", async () => {
    const { port } = await serve(8, 4);
    const client = await open(port, 2);
    expect(await client.ask("/review")).toMatch(/^connection: keep-alive/im);
    await settle(LIFETIME_MS + 200);
    expect(client.state.closed).toBe(false);
    expect(await client.ask("/healthz")).toMatch(/^connection: keep-alive/im);
  });

  it("closes an unproven connection that sends nothing within its lifetime", async () => {
    const { port, counts } = await serve(8, 4);
    const client = await open(port, 2);
    const began = performance.now();
    await client.closed;
    expect(performance.now() - began).toBeLessThan(LIFETIME_MS + 300);
    expect(counts.expired).toBe(1);
  });

  it("holds at most perSource unproven connections of one source: a new one closes that source's oldest", async () => {
    const { port, counts } = await serve(8, 2);
    const [a, b] = [await open(port, 2), await open(port, 2)];
    const c = await open(port, 2);
    await settle();
    expect([a.state.closed, b.state.closed, c.state.closed]).toEqual([true, false, false]);
    expect(counts.evicted).toBe(1);
    // Another source is not affected.
    const other = await open(port, 3);
    await settle();
    expect(other.state.closed).toBe(false);
  });

  it("at a full cap, lets a newcomer in by closing the oldest unproven connection of the largest source", async () => {
    const { port, counts } = await serve(4, 3);
    const proven = await open(port, 5);
    await proven.ask("/review");
    const attacker = [await open(port, 2), await open(port, 2), await open(port, 3)];
    const newcomer = await open(port, 4);
    await settle();
    expect(attacker.map((c) => c.state.closed)).toEqual([true, false, false]);
    expect(proven.state.closed).toBe(false);
    expect(await newcomer.ask("/review")).toMatch(/^connection: keep-alive/im);
    expect(counts.evicted).toBe(1);
  });

  it("holds at most maxUnproven unproven connections, proven ones beside them", async () => {
    const { port, counts } = await serve(8, 4, 2);
    const proven = await open(port, 5);
    await proven.ask("/review");
    const attacker = [await open(port, 2), await open(port, 3)];
    const newcomer = await open(port, 4);
    await settle();
    expect([...attacker.map((c) => c.state.closed), proven.state.closed, newcomer.state.closed]).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(counts.evicted).toBe(1);
  });

  it("refuses a new connection only when every slot is proven", async () => {
    const { port, counts } = await serve(2, 2);
    for (const n of [2, 3]) await (await open(port, n)).ask("/review");
    const late = await open(port, 4);
    await late.closed;
    expect(counts.refused).toBe(1);
  });
});
