/**
 * Connection slots go to callers that proved themselves (docs/security.md, "Limits on what one request can cost").
 * A connection is unproven until it carries a request whose caller authentication passed; until then each answer on it
 * says `Connection: close`, it lives at most `unprovenLifetimeMs`, one source address holds at most `perSource`
 * unproven connections, and all sources together `maxUnproven`. When those or all `maxConnections` slots are taken, a
 * new connection takes the slot of the oldest unproven one of the source holding the most, so the API server always
 * gets a connection; it is refused only when every slot is proven.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** The guard's limits. */
export interface ConnectionGuardOptions {
  /** Connections held at once, proven or not. */
  maxConnections: number;
  /** Unproven connections held at once, from every source. */
  maxUnproven: number;
  /** Unproven connections held at once from one source address. */
  perSource: number;
  /** An unproven connection is closed this many ms after it was accepted. */
  unprovenLifetimeMs: number;
}

/** One accepted connection. */
interface Slot {
  key: string;
  socket: Socket;
  source: string;
  proven: boolean;
  timer: ReturnType<typeof setTimeout>;
}

/** Counters of what the guard closed, for tests and logs. */
export interface ConnectionGuardCounts {
  /** Closed to make room (per-source share or a full cap). */
  evicted: number;
  /** Refused at once: every slot was proven. */
  refused: number;
  /** Closed at the end of their unproven lifetime. */
  expired: number;
}

/**
 * Guards `server`'s connections; call before it listens, with `server.maxConnections` unset (the guard counts).
 * @returns `prove(req, res)`, which marks the request's connection as carrying an authenticated caller and lets its
 *   answer keep the connection alive; `counts`.
 */
export function guardConnections(server: Server, options: ConnectionGuardOptions) {
  const { maxConnections, maxUnproven, perSource, unprovenLifetimeMs } = options;
  let unprovenCount = 0;
  // Keyed by the peer's address and port, which the raw socket and, over TLS, the TLSSocket a request arrives on share.
  const slots = new Map<string, Slot>();
  /** Unproven slots per source, oldest first (a Set keeps insertion order). */
  const unproven = new Map<string, Set<Slot>>();
  const counts: ConnectionGuardCounts = { evicted: 0, refused: 0, expired: 0 };
  /** Responses the guard set to close, which `prove` may set back to keep-alive (not those a shutdown set to close). */
  const closedByGuard = new WeakSet<ServerResponse>();

  /** No longer unproven: out of its source's group, its lifetime timer stopped. */
  const settle = (slot: Slot): void => {
    clearTimeout(slot.timer);
    const group = unproven.get(slot.source);
    if (!group?.delete(slot)) return;
    unprovenCount--;
    if (group.size === 0) unproven.delete(slot.source);
  };
  const forget = (slot: Slot): void => {
    settle(slot);
    if (slots.get(slot.key) === slot) slots.delete(slot.key);
  };
  const close = (slot: Slot, count: keyof ConnectionGuardCounts): void => {
    counts[count]++;
    forget(slot);
    slot.socket.destroy();
  };
  /** The oldest unproven slot of the source with the most. */
  const largestGroupOldest = (): Slot | undefined => {
    let largest: Set<Slot> | undefined;
    for (const group of unproven.values()) if (largest === undefined || group.size > largest.size) largest = group;
    return largest?.values().next().value;
  };

  // Before the TLS layer's listener, so a refused connection costs no handshake.
  server.prependListener("connection", (socket: Socket) => {
    const source = socket.remoteAddress ?? "";
    const group = unproven.get(source);
    if (group !== undefined && group.size >= perSource) close(group.values().next().value!, "evicted");
    else if (slots.size >= maxConnections || unprovenCount >= maxUnproven) {
      const victim = largestGroupOldest();
      if (victim === undefined) {
        counts.refused++;
        socket.destroy();
        return;
      }
      close(victim, "evicted");
    }
    const slot: Slot = {
      key: keyOf(socket),
      socket,
      source,
      proven: false,
      timer: setTimeout(() => close(slot, "expired"), unprovenLifetimeMs),
    };
    slot.timer.unref();
    slots.set(slot.key, slot);
    unproven.set(source, (unproven.get(source) ?? new Set()).add(slot));
    unprovenCount++;
    socket.once("close", () => forget(slot));
  });

  // Answers on an unproven connection close it; `prove` sets a reviewed one back to keep-alive.
  // Prepended: the app's listener may answer within its own call.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    if (slots.get(keyOf(req.socket))?.proven === true || !res.shouldKeepAlive) return;
    res.shouldKeepAlive = false;
    closedByGuard.add(res);
  });

  return {
    counts,
    prove(req: IncomingMessage, res: ServerResponse): void {
      const slot = slots.get(keyOf(req.socket));
      if (slot !== undefined && !slot.proven) {
        settle(slot);
        slot.proven = true;
      }
      if (closedByGuard.delete(res)) res.shouldKeepAlive = true;
    },
  };
}

/** The peer's address and port: one connection's key while it is open. */
const keyOf = (socket: Socket): string => `${socket.remoteAddress ?? ""}|${socket.remotePort ?? ""}`;
