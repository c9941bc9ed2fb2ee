/**
 * A connection-slot attacker for the end-to-end tests: TLS connections from several loopback source addresses
 * (127.0.0.2, 127.0.0.3, ...: 127.0.0.1 is the API server's own) that each send one `GET /healthz` with keep-alive,
 * read the answer and then stay idle; every connection the server closes or refuses is opened again, as an attacker
 * refilling freed slots would. It holds no credential.
 */
import { connect as connectTcp } from "node:net";
import { connect } from "node:tls";

/** What {@link holdIdleConnections} does. */
export interface IdleAttackOptions {
  /** Source addresses to connect from: 127.0.0.2 onwards. */
  sources: number;
  /** Connections kept open from each source. */
  perSource: number;
  /** How long to keep refilling, in ms. */
  durationMs: number;
}

/** The attack so far, as the attacker sees it. */
export interface IdleAttack {
  /** The most connections it had open at once (TCP connected, not yet closed): what it presents to the server's cap. */
  readonly mostOpen: number;
  /** The most idle at once after their /healthz answer: slots the attacker held. */
  readonly mostIdle: number;
  /** Connections opened in all. */
  readonly opened: number;
  /** Answers that asked to close the connection (`Connection: close`). */
  readonly toldToClose: number;
  /** Resolves once `durationMs` is over and every connection is closed. */
  done: Promise<void>;
  /** Stops refilling and closes everything. */
  stop(): void;
}

/** A refused connection is opened again after this pause, so a refusing server is not hammered in a hot loop. */
const REFUSED_PAUSE_MS = 50;
const REQUEST = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n";

/** Holds idle keep-alive connections to `127.0.0.1:port` for `durationMs`; see the file's comment. */
export function holdIdleConnections(port: number, { sources, perSource, durationMs }: IdleAttackOptions): IdleAttack {
  const ends = performance.now() + durationMs;
  const live = new Set<{ destroy(): void }>();
  let running = true;
  let openNow = 0;
  let idleNow = 0;
  const counts = { mostOpen: 0, mostIdle: 0, opened: 0, toldToClose: 0 };

  /** One slot: open, ask, stay idle until closed; then again, until the attack ends. */
  const holdSlot = async (localAddress: string): Promise<void> => {
    while (running && performance.now() < ends) {
      const answered = await new Promise<boolean>((settled) => {
        let connected = false;
        let idle = false;
        let head = "";
        // The source address is chosen on the TCP socket (tls.connect's options do not declare it).
        const tcp = connectTcp({ host: "127.0.0.1", port, localAddress });
        const socket = connect({ socket: tcp, rejectUnauthorized: false }, () => {
          socket.write(REQUEST);
        });
        live.add(socket);
        counts.opened++;
        tcp.once("connect", () => {
          connected = true;
          counts.mostOpen = Math.max(counts.mostOpen, ++openNow);
        });
        tcp.on("error", () => undefined);
        socket.on("error", () => undefined);
        socket.on("data", (chunk: Buffer) => {
          head += chunk.toString("latin1");
          if (idle || !head.includes("\r\n\r\n")) return;
          idle = true;
          if (/^connection:\s*close/im.test(head)) counts.toldToClose++;
          counts.mostIdle = Math.max(counts.mostIdle, ++idleNow);
        });
        socket.once("close", () => {
          live.delete(socket);
          if (connected) openNow--;
          if (idle) idleNow--;
          settled(idle);
        });
        // The attack's end closes what is left.
        setTimeout(() => socket.destroy(), Math.max(0, ends - performance.now())).unref();
      });
      if (!answered) await new Promise((resolve) => setTimeout(resolve, REFUSED_PAUSE_MS));
    }
  };

  const slots = Array.from({ length: sources * perSource }, (_, i) => holdSlot(`127.0.0.${2 + (i % sources)}`));
  return Object.assign(counts, {
    done: Promise.all(slots).then(() => undefined),
    stop() {
      running = false;
      for (const socket of live) socket.destroy();
    },
  });
}
