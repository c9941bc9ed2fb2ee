/**
 * The fuzzed cluster's ground truth: which credspecs exist, which service accounts may use them, and which
 * lookups fail. The fake GmsaClient answers from it; the oracle judges from it, with its own code.
 */
import { AdmissionError } from "../../../shared/errors.ts";
import type { AccessQuery, GmsaClient } from "../../../shared/kube/client.ts";

/** Every credspec's contents carry a marker, so a test can prove contents never reach a log. */
export const CONTENTS_MARKER = "CREDSPEC-CONTENTS-MARKER";

function credspec(account: string): unknown {
  return {
    CmsPlugins: ["ActiveDirectory"],
    DomainJoinConfig: {
      Sid: "S-1-5-21-702590844-1001920913-2680819671",
      MachineAccountName: account,
      Guid: "56d9b711-8a84-4e46-9b5d-d3c9a2b1f8e4",
      DnsTreeName: "contoso.com",
      DnsName: "contoso.com",
      NetBiosName: "CONTOSO",
    },
    ActiveDirectoryConfig: { GroupManagedServiceAccounts: [{ Name: account, Scope: "contoso.com" }] },
    Note: `${CONTENTS_MARKER}-${account}`,
    Numbers: [1, 2.5, -0, 1e21],
    Empty: {},
  };
}

/** Credspecs that exist with contents. */
export const CREDSPECS: ReadonlyMap<string, unknown> = new Map([
  ["webapp1", credspec("WebApp1")],
  ["db.gmsa", credspec("DbAccount")],
  ["shared", credspec("Shared")],
  ["access-flaky", credspec("AccessFlaky")],
  ["access-buggy", credspec("AccessBuggy")],
]);

/** Names whose lookups go wrong, and how. */
export const FAILING_NAMES = ["missing", "no-contents", "flaky", "buggy", "late"] as const;

/** `namespace/serviceAccount/credspec` triples the authorizer allows. */
export const ALLOWED = new Set([
  "team-a/web/webapp1",
  "team-a/default/shared",
  "team-b/default/shared",
  "team-b/db/db.gmsa",
  "team-a/web/access-flaky",
  "team-a/web/access-buggy",
]);

export const NAMESPACES = ["team-a", "team-b", "default"] as const;
export const SERVICE_ACCOUNTS = ["web", "db", "default"] as const;

/** The contents a lookup of `name` yields, or undefined when it yields none (absent, failing). */
export function knownContents(name: string): unknown {
  return CREDSPECS.get(name);
}

/** Whether the authorizer allows `serviceAccount` in `namespace` to use `name` (and says so without failing). */
export function isAllowed(namespace: string, serviceAccount: string, name: string): boolean {
  return name !== "access-flaky" && name !== "access-buggy" && ALLOWED.has(`${namespace}/${serviceAccount}/${name}`);
}

/** The fake client, with call counts. Failures: not found, no contents, API errors, our own bugs, a deadline. */
export function createFakeGmsaClient(): GmsaClient & { calls: number } {
  const client = {
    calls: 0,
    async getCredSpecContents(name: string): Promise<unknown> {
      client.calls++;
      await Promise.resolve();
      switch (name) {
        case "no-contents":
          throw new AdmissionError(`GMSACredentialSpec "${name}" has no credspec field`, { code: "ERR_CREDSPEC_WITHOUT_CONTENTS" });
        case "flaky":
          throw new AdmissionError("the API server answered 503", { code: "ERR_KUBE_API" });
        case "buggy":
          throw new TypeError("cannot read properties of undefined");
        case "late":
          throw new AdmissionError("the review's deadline passed", { code: "ERR_DEADLINE_EXCEEDED" });
      }
      const contents = CREDSPECS.get(name);
      if (contents === undefined) throw new AdmissionError(`GMSACredentialSpec "${name}" does not exist`, { code: "ERR_CREDSPEC_NOT_FOUND" });
      return structuredClone(contents);
    },
    async canUseCredSpec(query: AccessQuery) {
      // The fuzzed app runs with REVIEW_REQUESTING_USER=off: a requester review would be a bug.
      if ("user" in query) return Promise.reject(new RangeError("the requesting user was reviewed with REVIEW_REQUESTING_USER=off"));
      client.calls++;
      await Promise.resolve();
      if (query.credSpecName === "access-flaky") throw new AdmissionError("the API server answered 500", { code: "ERR_KUBE_API" });
      if (query.credSpecName === "access-buggy") return Promise.reject(new RangeError("boom"));
      const allowed = isAllowed(query.namespace, query.serviceAccount, query.credSpecName);
      return { allowed, reason: allowed ? "" : `RBAC: ${query.serviceAccount} may not use ${query.credSpecName}` };
    },
    // With REVIEW_REQUESTING_USER=off no exec or attach reads its pod: a read would be a bug.
    getPod: () => Promise.reject(new RangeError("a pod was read with REVIEW_REQUESTING_USER=off")),
  };
  return client;
}
