/** CALLER_AUTH=none: every caller is let in; only the Node server listening on loopback accepts it (local runs). */
import { RUNTIME_NAMES } from "../config/runtime.ts";
import type { CallerAuthMode } from "./mode.ts";

export type NoneOptions = { mode: "none" };

export const none = {
  name: "none",
  variables: [],
  runtimes: ["node"],
  loopbackOnly: true,
  read: () => ({ mode: "none" }),
  checkListener({ runtime, host }, others) {
    // Addresses only this machine can reach: the one place where no caller authentication is acceptable.
    const loopback =
      host !== undefined && (host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host));
    if (runtime === "node" && loopback) return undefined;
    const where =
      runtime === "node"
        ? `the Node server listens on ${host === undefined ? "every interface (HOST is unset)" : `"${host}"`}`
        : `${RUNTIME_NAMES[runtime]} is reachable from the network`;
    return (
      `CALLER_AUTH=none lets anyone who reaches the function in, and ${where}: none is accepted only by the Node ` +
      `server listening on loopback (HOST=127.0.0.1, ::1 or localhost); choose ${others}`
    );
  },
  middleware: (_options) => (_c, next) => next(),
} as const satisfies CallerAuthMode<NoneOptions>;
