/** Counting API-server calls in the audit log (JSON lines, one event per request at ResponseComplete). */
import { open, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { JWT_USERNAME_PREFIX, jwtSubject } from "../../infra/local/jwt-issuer-server.ts";
import { AUDIT_POLICY } from "../../infra/local/server-flags.ts";
import type { FunctionName } from "../../shared/config/index.ts";

/** Who a function calls the API server as: its service account (Node), its JWT's mapped username (Workers). */
export function functionUsers(fn: FunctionName): string[] {
  return [`system:serviceaccount:gmsa-webhooks:gmsa-${fn}`, `${JWT_USERNAME_PREFIX}${jwtSubject(fn)}`];
}

/** The local cluster's policy plus the functions' two calls: credspec reads and LocalSubjectAccessReviews. */
export const BENCH_AUDIT_POLICY = {
  ...AUDIT_POLICY,
  rules: [
    ...AUDIT_POLICY.rules.filter((rule) => rule.level !== "None"),
    { level: "Metadata", resources: [{ group: "windows.k8s.io", resources: ["gmsacredentialspecs"] }] },
    { level: "Metadata", resources: [{ group: "authorization.k8s.io", resources: ["localsubjectaccessreviews"] }] },
    { level: "None" },
  ],
};

/** Calls per (user, "verb resource"), e.g. `get gmsacredentialspecs`. */
type CallCounts = Map<string, Map<string, number>>;

export interface ReviewCalls {
  credspecReads: number;
  accessReviews: number;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string };
}

/** The audit log from a byte offset on. */
export interface AuditLog {
  /** The current end of the log, to count from. */
  mark(): Promise<number>;
  /** Completed calls logged since `offset` (waits `settleMs`, default 300, for the last events to be written). */
  countSince(offset: number, settleMs?: number): Promise<CallCounts>;
}

export function openAuditLog(file: string): AuditLog {
  return {
    mark: async () => (await stat(file)).size,
    async countSince(offset, settleMs = 300) {
      await sleep(settleMs);
      const handle = await open(file, "r");
      const counts: CallCounts = new Map();
      try {
        const length = (await handle.stat()).size - offset;
        // Shorter than the mark: kube-apiserver rotated the log, and the calls since are not all in this file.
        if (length < 0)
          throw new Error(`the audit log ${file} was rotated since byte ${offset}: its calls cannot be counted`);
        const buffer = Buffer.alloc(Math.max(0, length));
        if (length > 0) await handle.read(buffer, 0, length, offset);
        for (const line of buffer.toString("utf8").split("\n")) {
          if (line === "") continue;
          const event = JSON.parse(line) as AuditEvent;
          if (event.stage !== "ResponseComplete") continue;
          const user = event.user?.username ?? "";
          const key = `${event.verb ?? ""} ${event.objectRef?.resource ?? ""}`;
          const byUser = counts.get(user) ?? new Map<string, number>();
          byUser.set(key, (byUser.get(key) ?? 0) + 1);
          counts.set(user, byUser);
        }
      } finally {
        await handle.close();
      }
      return counts;
    },
  };
}

/** The credspec reads and access reviews `users` made in `counts`. */
export function usersCalls(counts: CallCounts, users: readonly string[]): ReviewCalls {
  const sum = (call: string) => users.reduce((total, user) => total + (counts.get(user)?.get(call) ?? 0), 0);
  return { credspecReads: sum("get gmsacredentialspecs"), accessReviews: sum("create localsubjectaccessreviews") };
}

export function functionCalls(counts: CallCounts, fn: FunctionName): ReviewCalls {
  return usersCalls(counts, functionUsers(fn));
}
