/**
 * What the client reports (shared/observer.ts): every HTTP attempt with its verb, resource and code (retries
 * included, `error` for a transport failure, `timeout` for the deadline), every cache lookup, and the review's tally.
 */
import { describe, expect, it } from "vitest";
import type { CacheName, CallTally, KubeCallCode, KubeObserver } from "../../../../shared/observer.ts";
import { createFakeKubeClient, json, status, type FakeScript } from "../../../support/fake-fetch.ts";

/** A tally at zero, as the review handler starts one. */
const createCallTally = (): CallTally => ({ kubeRequests: 0, cacheHits: 0, cacheMisses: 0 });

function setup(script: FakeScript) {
  const attempts: [string, string, KubeCallCode][] = [];
  const lookups: [CacheName, boolean][] = [];
  const observer: KubeObserver = {
    kubeRequest(verb, resource, code, seconds) {
      expect(seconds).toBeGreaterThanOrEqual(0);
      attempts.push([verb, resource, code]);
    },
    cacheRequest: (cache, hit) => lookups.push([cache, hit]),
  };
  const { client } = createFakeKubeClient(script, { retryDelayMs: 1, requestTimeoutMs: 300, observer });
  return { client, attempts, lookups };
}

const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };

describe("the client's observer and tally", () => {
  it("reports each attempt, a retried 503 included, and each cache lookup; the tally counts the same", async () => {
    const { client, attempts, lookups } = setup((call, index) => {
      if (call.method === "POST") return json(201, { status: { allowed: true } });
      return index === 0 ? status(503, "ServiceUnavailable") : json(200, { credspec: { n: 1 } });
    });
    const tally = createCallTally();
    const call = { signal: AbortSignal.timeout(5_000), tally };
    await client.getCredSpecContents("webapp01", call);
    await client.getCredSpecContents("webapp01", call);
    await client.canUseCredSpec(query, call);
    expect(attempts).toEqual([
      ["get", "gmsacredentialspecs", 503],
      ["get", "gmsacredentialspecs", 200],
      ["create", "localsubjectaccessreviews", 201],
    ]);
    expect(lookups).toEqual([
      ["credspec", false],
      ["credspec", true],
      ["access", false],
    ]);
    expect(tally).toEqual({ kubeRequests: 3, cacheHits: 1, cacheMisses: 2 });
  });

  it("reports a transport failure as error and an attempt cut by the deadline as timeout", async () => {
    const refused = setup(() => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    });
    await expect(
      refused.client.getCredSpecContents("webapp01", { signal: AbortSignal.timeout(5_000) }),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(refused.attempts).toEqual([
      ["get", "gmsacredentialspecs", "error"],
      ["get", "gmsacredentialspecs", "error"],
    ]);
    const hung = setup(() => "hang");
    await expect(hung.client.getCredSpecContents("webapp01", { signal: AbortSignal.timeout(5_000) })).rejects.toThrow(
      /deadline/,
    );
    expect(hung.attempts).toEqual([["get", "gmsacredentialspecs", "timeout"]]);
  });
});
