/**
 * Slow-loris clients for the end-to-end tests: connections that finish their TLS handshake and send half a request
 * header, or that never start the handshake, and then wait for the server to close them. Loopback only, from source
 * addresses 127.0.0.2 onwards: 127.0.0.1 is the API server's own, and the server bounds what one source holds.
 */
import { connect as connectTcp } from "node:net";
import { connect as connectTls } from "node:tls";

/** How one stalled connection went. */
export interface StalledConnection {
  kind: "half-header" | "no-handshake";
  /** The server took it: the TLS handshake finished (half-header) or it stayed open past the first second. */
  held: boolean;
  /** ms from opening until the server closed it; undefined while open. */
  closedAfterMs?: number;
}

/** Opened (and by now possibly closed) connections, and a way to wait until the server has closed them all. */
export interface Stall {
  /** Every connection opened so far. */
  connections: StalledConnection[];
  /** Resolves once all `count` are open (held) or refused, and the sustained phase is over. */
  opened: Promise<void>;
  /** Ends the sustained phase now. */
  stopSustaining(): void;
  /** The most the server held open at once. */
  readonly mostHeld: number;
  /**
   * Connections the server closed sooner than any of its timeouts could ({@link MADE_ROOM_WITHIN_MS} of opening): it
   * does that only to make room for a newcomer, when its cap is full.
   */
  readonly madeRoom: number;
  /** Resolves once every connection is closed, or after `limitMs`; the last close, in ms since the stall began. */
  allClosed(limitMs: number): Promise<number | undefined>;
  /** Destroys whatever is still open (the test's cleanup). */
  destroy(): void;
}

/** A connection the server closes within this after opening it was refused (the connection cap), not held. */
const REFUSED_WITHIN_MS = 1_000;
/** Under the server's 5 s handshake and headers timeouts (functions/node/server.ts), with a second to spare. */
const MADE_ROOM_WITHIN_MS = 4_000;
/** Handshakes in flight at once while opening: enough to open a thousand in a few seconds on two cores. */
const OPENING_CONCURRENCY = 64;

/** The first lines of a review, cut in the middle of a header: the server is left waiting for the rest. */
const HALF_HEADER = "POST /expand?timeout=10s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl";

/** What {@link openStalledConnections} does. */
export interface StallOptions {
  /** Connections to open. */
  count: number;
  /** Every this many, one is a bare TCP connection that never sends a byte. */
  noHandshakeEvery: number;
  /** Source addresses to spread the connections over, 127.0.0.2 onwards. */
  sources: number;
  /**
   * After the first `count`, keep `count` open until this many ms after the first: each one the server closes or
   * refuses is replaced (after a pause of {@link RETRY_PAUSE_MS} when refused), as an attacker refilling the slots the
   * server frees would. Default 0.
   */
  sustainMs?: number;
}

/** Between refused attempts, and between checks while `count` are open, while sustaining. */
const RETRY_PAUSE_MS = 50;

/**
 * Opens stalled connections to `127.0.0.1:port`: TLS connections that send {@link HALF_HEADER}, and bare TCP ones,
 * {@link OPENING_CONCURRENCY} at a time.
 */
export function openStalledConnections(
  port: number,
  { count, noHandshakeEvery, sources, sustainMs = 0 }: StallOptions,
): Stall {
  const began = performance.now();
  let sustainUntil = began + sustainMs;
  const connections: StalledConnection[] = [];
  const sockets: { destroy(): void }[] = [];
  const closes: Promise<void>[] = [];
  let lastCloseMs = 0;
  const counts = { mostHeld: 0, madeRoom: 0 };
  const heldNow = () => connections.filter((c) => c.held && c.closedAfterMs === undefined).length;
  const countHeld = () => void (counts.mostHeld = Math.max(counts.mostHeld, heldNow()));

  const open = (index: number): Promise<void> =>
    new Promise<void>((settled) => {
      const kind = index % noHandshakeEvery === noHandshakeEvery - 1 ? "no-handshake" : "half-header";
      const record: StalledConnection = { kind, held: false };
      connections.push(record);
      const opened = performance.now();
      // The source address is chosen on the TCP socket (tls.connect's options do not declare it).
      const tcp = connectTcp({ host: "127.0.0.1", port, localAddress: `127.0.0.${2 + (index % sources)}` });
      tcp.on("error", () => undefined);
      const socket =
        kind === "no-handshake"
          ? tcp
          : connectTls({ socket: tcp, rejectUnauthorized: false }, () => {
              record.held = true;
              countHeld();
              socket.write(HALF_HEADER);
              settled();
            });
      sockets.push(socket);
      socket.on("error", () => undefined);
      socket.on("data", () => undefined);
      if (kind === "no-handshake") {
        socket.once("connect", () => {
          // The server closes a refused connection at once: wait a moment before counting it as held.
          setTimeout(() => {
            record.held = record.closedAfterMs === undefined;
            countHeld();
            settled();
          }, REFUSED_WITHIN_MS).unref();
        });
      }
      closes.push(
        new Promise<void>((closed) =>
          socket.once("close", () => {
            record.closedAfterMs = performance.now() - opened;
            if (record.closedAfterMs < MADE_ROOM_WITHIN_MS) counts.madeRoom++;
            lastCloseMs = Math.max(lastCloseMs, performance.now() - began);
            settled();
            closed();
          }),
        ),
      );
    });

  let next = 0;
  const openNow = () => connections.filter((c) => c.closedAfterMs === undefined).length;
  const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  const opened = Promise.all(
    Array.from({ length: OPENING_CONCURRENCY }, async () => {
      while (next < count) await open(next++);
      while (performance.now() < sustainUntil) {
        // At most `count` open at once: refill only what the server closed or refused.
        if (openNow() >= count) {
          await pause();
          continue;
        }
        // `open` records the connection at `index` before its first await.
        const index = next++;
        await open(index);
        if (!connections[index]!.held) await pause();
      }
    }),
  ).then(() => undefined);
  return Object.assign(counts, {
    connections,
    opened,
    stopSustaining() {
      sustainUntil = 0;
    },
    async allClosed(limitMs: number) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = await Promise.race([
        Promise.all(closes).then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), limitMs))),
      ]);
      clearTimeout(timer);
      return done ? lastCloseMs : undefined;
    },
    destroy() {
      for (const socket of sockets) socket.destroy();
    },
  });
}
