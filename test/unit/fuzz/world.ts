/**
 * The fuzzed cluster's ground truth: which credspecs exist, which service accounts may use them, and which
 * lookups fail. The fake GmsaClient answers from it; the oracle judges from it, with its own code.
 */
import { AdmissionError } from "../../../shared/errors.ts";
import { createFakeGmsaClient, WITHOUT_CONTENTS, type FakeGmsaClient } from "../../support/fake-gmsa-client.ts";

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

/** Credspecs that exist with contents: what a lookup yields (none for the absent and the failing). */
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

/** `namespace/username/credspec` triples the authorizer allows a requesting user (REVIEW_REQUESTING_USER). */
export const ALLOWED_USERS = new Set([
  "team-a/alice/webapp1",
  "team-a/alice/shared",
  "team-b/alice/db.gmsa",
  "team-b/bob/shared",
  "team-a/bob/access-flaky",
]);

/** Requesting users: two people, a controller, and one nobody allowed anything. */
export const USERS = ["alice", "bob", "system:serviceaccount:kube-system:replicaset-controller", "mallory"] as const;

export const NAMESPACES = ["team-a", "team-b", "default"] as const;
export const SERVICE_ACCOUNTS = ["web", "db", "default"] as const;

/** Whether the authorizer allows `serviceAccount` in `namespace` to use `name` (and says so without failing). */
export function isAllowed(namespace: string, serviceAccount: string, name: string): boolean {
  return name !== "access-flaky" && name !== "access-buggy" && ALLOWED.has(`${namespace}/${serviceAccount}/${name}`);
}

export function isUserAllowed(namespace: string, username: string, name: string): boolean {
  return ALLOWED_USERS.has(`${namespace}/${username}/${name}`);
}

/**
 * The fake client, answering from this world. Failures: not found, no contents, API errors, our own bugs, a deadline.
 * With `reviewsRequester` false (the app runs with REVIEW_REQUESTING_USER=off), a requester review is a bug.
 */
export function createWorldClient({ reviewsRequester = false }: { reviewsRequester?: boolean } = {}): FakeGmsaClient {
  return createFakeGmsaClient({
    credspecs: { ...Object.fromEntries(CREDSPECS), "no-contents": WITHOUT_CONTENTS },
    allowed: [...ALLOWED].map((triple) => {
      const [namespace, serviceAccount, credSpecName] = triple.split("/") as [string, string, string];
      return { namespace, serviceAccount, credSpecName };
    }),
    allowedUsers: [...ALLOWED_USERS].map((triple) => {
      const [namespace, username, credSpecName] = triple.split("/") as [string, string, string];
      return { namespace, username, credSpecName };
    }),
    denyReason: "RBAC: not allowed",
    fail: (call, name) => {
      if (call === "canUserUseCredSpec")
        return reviewsRequester
          ? undefined
          : new RangeError("the requesting user was reviewed with REVIEW_REQUESTING_USER=off");
      if (call === "getPod")
        return reviewsRequester ? undefined : new RangeError("a pod was read with REVIEW_REQUESTING_USER=off");
      if (call === "canUseCredSpec") {
        if (name === "access-flaky") return new AdmissionError("the API server answered 500", { code: "ERR_KUBE_API" });
        return name === "access-buggy" ? new RangeError("boom") : undefined;
      }
      if (name === "flaky") return new AdmissionError("the API server answered 503", { code: "ERR_KUBE_API" });
      if (name === "buggy") return new TypeError("cannot read properties of undefined");
      return name === "late"
        ? new AdmissionError("the review's deadline passed", { code: "ERR_DEADLINE_EXCEEDED" })
        : undefined;
    },
  });
}
