/**
 * An in-memory GmsaClient for unit tests (after windows-gmsa's fake in `utils_test.go`): credspecs by name,
 * allowed (service account, namespace, credspec) triples, call counters per name, and optional delay,
 * failure or hang injection.
 */
import { sleep } from "../../shared/deadline.ts";
import { AdmissionError } from "../../shared/errors.ts";
import type { AccessQuery } from "../../shared/kube/access-reviews.ts";
import type { GmsaClient } from "../../shared/kube/client.ts";
import type { CallOptions } from "../../shared/kube/request.ts";
import type { Pod } from "../../shared/admission/review.ts";
import type { AccessAnswer } from "../../shared/policy/facts.ts";

type ServiceAccountQuery = Extract<AccessQuery, { serviceAccount: string }>;
type UserAccessQuery = Extract<AccessQuery, { user: unknown }>;

/** Stands for a GMSACredentialSpec that exists but has no `credspec` field. */
export const WITHOUT_CONTENTS: unique symbol = Symbol("without contents");

export interface FakeGmsaClientOptions {
  /** The `credspec` field of each GMSACredentialSpec, by name; WITHOUT_CONTENTS for one that has none. */
  credspecs?: Record<string, unknown>;
  /** Who may `use` what. */
  allowed?: ServiceAccountQuery[];
  /** Pods by "namespace/name", for the target of an exec or attach; any other is not found (ERR_KUBE_API). */
  pods?: Record<string, Pod>;
  /** Which requesting users may `use` what (by username, namespace and credspec). */
  allowedUsers?: { namespace: string; username: string; credSpecName: string }[];
  /** The authorizer's reason on a refusal. */
  denyReason?: string;
  /** Every call waits this long first (honouring the signal). */
  delayMs?: number;
  /** Thrown (as a rejection) by the named call for the named credspec; undefined lets it through. */
  fail?: (call: FakeCall, credSpecName: string) => Error | undefined;
  /** Calls never settle and ignore their signal (a hung exec plugin, say). */
  hang?: boolean;
}

/** The call a failure is injected into; `canUserUseCredSpec` is canUseCredSpec asked for a requesting user. */
type FakeCall = "getCredSpecContents" | "canUseCredSpec" | "canUserUseCredSpec" | "getPod";

export interface FakeGmsaClient extends GmsaClient {
  /** getCredSpecContents calls per credspec name. */
  readonly contentsCalls: Map<string, number>;
  /** Every access query, in call order. */
  readonly accessQueries: ServiceAccountQuery[];
  /** Every pod read ("namespace/name"), in call order. */
  readonly podReads: string[];
  /** Every requesting-user access query, in call order. */
  readonly userAccessQueries: UserAccessQuery[];
  /** All calls of both kinds. */
  callCount(): number;
  /** The most calls of either kind that were in flight at once. */
  maxInFlight(): number;
}

export function createFakeGmsaClient(options: FakeGmsaClientOptions = {}): FakeGmsaClient {
  const credspecs = new Map(Object.entries(options.credspecs ?? {}));
  const contentsCalls = new Map<string, number>();
  const accessQueries: ServiceAccountQuery[] = [];
  const userAccessQueries: UserAccessQuery[] = [];
  const podReads: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  const settle = async (call: FakeCall, name: string, { signal }: CallOptions): Promise<void> => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      if (options.hang === true) await new Promise<never>(() => {});
      if (options.delayMs !== undefined && !(await sleep(options.delayMs, signal)))
        throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
      const failure = options.fail?.(call, name);
      if (failure !== undefined) throw failure;
    } finally {
      inFlight--;
    }
  };

  return {
    contentsCalls,
    accessQueries,
    userAccessQueries,
    podReads,
    callCount: () =>
      [...contentsCalls.values()].reduce((a, b) => a + b, 0) +
      accessQueries.length +
      userAccessQueries.length +
      podReads.length,
    maxInFlight: () => maxInFlight,
    async getCredSpecContents(name, callOptions): Promise<unknown> {
      contentsCalls.set(name, (contentsCalls.get(name) ?? 0) + 1);
      await settle("getCredSpecContents", name, callOptions);
      if (!credspecs.has(name))
        throw new AdmissionError(`GMSACredentialSpec "${name}" not found`, { code: "ERR_CREDSPEC_NOT_FOUND" });
      const value = credspecs.get(name);
      if (value === WITHOUT_CONTENTS)
        throw new AdmissionError(`GMSACredentialSpec "${name}" has no credspec`, {
          code: "ERR_CREDSPEC_WITHOUT_CONTENTS",
        });
      return structuredClone(value);
    },
    async canUseCredSpec(query, callOptions): Promise<AccessAnswer> {
      if ("user" in query) {
        userAccessQueries.push(structuredClone(query));
        await settle("canUserUseCredSpec", query.credSpecName, callOptions);
      } else {
        accessQueries.push({ ...query });
        await settle("canUseCredSpec", query.credSpecName, callOptions);
      }
      const same = (a: { namespace: string; credSpecName: string }) =>
        a.namespace === query.namespace && a.credSpecName === query.credSpecName;
      const allowed =
        "user" in query
          ? (options.allowedUsers ?? []).some((a) => same(a) && a.username === query.user.username)
          : (options.allowed ?? []).some((a) => same(a) && a.serviceAccount === query.serviceAccount);
      return { allowed, reason: allowed ? "" : (options.denyReason ?? "") };
    },
    async getPod(namespace, name, callOptions): Promise<Pod> {
      const key = `${namespace}/${name}`;
      podReads.push(key);
      await settle("getPod", key, callOptions);
      const pod = options.pods?.[key];
      if (pod === undefined)
        throw new AdmissionError(`reading pod "${key}": API server answered 404 NotFound`, { code: "ERR_KUBE_API" });
      return structuredClone(pod);
    },
  };
}

/** The contents of credspec "webapp1" as {@link createCountingClient} serves them. */
export const WEBAPP1 = { CmsPlugins: ["ActiveDirectory"], DomainJoinConfig: { MachineAccountName: "webapp1" } };

/**
 * A GmsaClient that counts calls and knows one credspec, "webapp1", usable by everyone: for tests of the HTTP
 * layer, where only whether the functions reached the API server matters.
 */
export function createCountingClient(): GmsaClient & { calls: number } {
  const client = {
    calls: 0,
    getCredSpecContents() {
      client.calls++;
      return Promise.resolve(WEBAPP1);
    },
    canUseCredSpec() {
      client.calls++;
      return Promise.resolve({ allowed: true, reason: "" });
    },
    getPod(): Promise<Pod> {
      client.calls++;
      return Promise.resolve({ spec: { containers: [{ name: "web" }] } });
    },
  };
  return client;
}
