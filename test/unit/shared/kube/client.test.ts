import { describe, expect, it } from "vitest";
import type { Credential, TokenSource } from "../../../../shared/credentials/token-source.ts";
import { AdmissionError } from "../../../../shared/errors.ts";
import type { CacheName, CallTally, KubeCallCode, KubeObserver } from "../../../../shared/observer.ts";
import type { KubeGmsaClientOptions } from "../../../../shared/kube/client.ts";
import { createFakeKubeClient, json, status, type FakeScript } from "../../../support/fake-fetch.ts";
import { rejectionOf } from "../../../support/no-secrets.ts";

const SERVER = "https://kube.example:6443/";
const SECRET = "super-secret-token";
const call = () => ({ signal: AbortSignal.timeout(10_000) });
const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };
const credspec = { CmsPlugins: ["ActiveDirectory"], DomainJoinConfig: { MachineAccountName: "webapp01" } };

/** Token source handing out `${SECRET}-1`, `-2`... counting loads and invalidations. */
function countingTokens(): TokenSource & { loads: number; invalidations: number } {
  let current: Credential | undefined;
  const source = {
    loads: 0,
    invalidations: 0,
    getCredential() {
      current ??= { token: `${SECRET}-${++source.loads}` };
      return Promise.resolve(current);
    },
    invalidate(credential: Credential) {
      source.invalidations++;
      if (credential === current) current = undefined;
    },
  };
  return source;
}

function setup(script: FakeScript, options: Partial<KubeGmsaClientOptions> = {}) {
  const tokens = countingTokens();
  const defaults = {
    server: SERVER,
    tokenSource: tokens,
    retryDelayMs: 10,
    credSpecCacheTtlMs: 0,
    accessCacheTtlMs: 0,
  };
  return { ...createFakeKubeClient(script, { ...defaults, ...options }), tokens };
}

async function failure(promise: Promise<unknown>): Promise<AdmissionError> {
  const error = await rejectionOf(promise);
  expect(error.message).not.toContain(SECRET);
  return error;
}

/** Reads credspec "webapp01" through a client answering with `script`: how it failed, the calls and the tokens. */
async function failedRead(script: FakeScript, options: Partial<KubeGmsaClientOptions> = {}) {
  const { client, calls, tokens } = setup(script, options);
  return { error: await failure(client.getCredSpecContents("webapp01", call())), calls, tokens };
}

describe("getCredSpecContents", () => {
  it("GETs the cluster-scoped resource with the bearer token and returns its credspec", async () => {
    const { client, calls } = setup(() => json(200, { kind: "GMSACredentialSpec", credspec }));
    expect(await client.getCredSpecContents("webapp01", call())).toEqual(credspec);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe("https://kube.example:6443/apis/windows.k8s.io/v1/gmsacredentialspecs/webapp01");
    expect(calls[0]?.headers.get("Authorization")).toBe(`Bearer ${SECRET}-1`);
    expect(calls[0]?.headers.get("Accept")).toBe("application/json");
  });

  it("maps a NotFound for the object to ERR_CREDSPEC_NOT_FOUND and a resource without credspec to ERR_CREDSPEC_WITHOUT_CONTENTS (422)", async () => {
    const { client } = setup(() =>
      status(404, "NotFound", { name: "missing", group: "windows.k8s.io", kind: "gmsacredentialspecs" }),
    );
    const error = await failure(client.getCredSpecContents("missing", call()));
    expect(error).toMatchObject({ code: "ERR_CREDSPEC_NOT_FOUND", status: 422 });
    expect(error.message).toContain('"missing"');
    const empty = setup(() => json(200, { kind: "GMSACredentialSpec", metadata: { name: "empty" } })).client;
    expect(await failure(empty.getCredSpecContents("empty", call()))).toMatchObject({
      code: "ERR_CREDSPEC_WITHOUT_CONTENTS",
      status: 422,
    });
  });

  it.each([
    [404, "NotFound", "the API server does not serve windows.k8s.io/v1 gmsacredentialspecs (is the CRD installed?)"],
    [403, "Forbidden", "API server answered 403 Forbidden: check this function's RBAC"],
  ])("maps a %i %s for the path to ERR_KUBE_API (500) naming it, unretried", async (code, reason, what) => {
    const { error, calls } = await failedRead(() => status(code, reason));
    expect(error).toMatchObject({
      code: "ERR_KUBE_API",
      status: 500,
      message: `reading GMSACredentialSpec "webapp01": ${what}`,
    });
    expect(calls).toHaveLength(1);
  });

  it("retries a 5xx GET once: the retry's answer counts, and a second 5xx fails with the status and reason", async () => {
    const { error, calls } = await failedRead(() => status(503, "ServiceUnavailable"));
    expect(error.message).toBe('reading GMSACredentialSpec "webapp01": API server answered 503 ServiceUnavailable');
    expect(calls).toHaveLength(2);
    const recovering = setup((_call, index) => (index === 0 ? status(500, "InternalError") : json(200, { credspec })));
    expect(await recovering.client.getCredSpecContents("webapp01", call())).toEqual(credspec);
    expect(recovering.calls).toHaveLength(2);
  });

  it("retries a transport error once, then reports the server unreachable", async () => {
    const { error, calls } = await failedRead(() => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      });
    });
    expect(error).toMatchObject({ code: "ERR_KUBE_API" });
    expect(error.message).toBe('reading GMSACredentialSpec "webapp01": API server unreachable (ECONNREFUSED)');
    expect(calls).toHaveLength(2);
  });

  it("fails with ERR_CREDENTIALS when the fresh credential is refused too", async () => {
    const { error, calls, tokens } = await failedRead(() => status(401, "Unauthorized"));
    expect(error).toMatchObject({ code: "ERR_CREDENTIALS" });
    expect(calls).toHaveLength(2);
    expect(tokens.invalidations).toBe(2);
  });

  it("answers by the caller's deadline when the server does not, and by its own timeout when the fetch ignores the signal", async () => {
    const started = Date.now();
    const hung = setup(() => "hang").client.getCredSpecContents("webapp01", { signal: AbortSignal.timeout(200) });
    expect(await failure(hung)).toMatchObject({ code: "ERR_DEADLINE_EXCEEDED" });
    expect(Date.now() - started).toBeLessThan(1_000);
    const { error } = await failedRead(() => new Promise<Response>(() => undefined), { requestTimeoutMs: 200 });
    expect(error).toMatchObject({ code: "ERR_DEADLINE_EXCEEDED" });
  });

  it("puts what failed in front of credential errors", async () => {
    const tokenSource: TokenSource = {
      getCredential: () =>
        Promise.reject(new AdmissionError('exec plugin "aws" exited with code 1', { code: "ERR_CREDENTIALS" })),
      invalidate: () => undefined,
    };
    const { error, calls } = await failedRead(() => json(200, {}), { tokenSource });
    expect(error).toMatchObject({ code: "ERR_CREDENTIALS" });
    expect(error.message).toBe('reading GMSACredentialSpec "webapp01": exec plugin "aws" exited with code 1');
    expect(calls).toHaveLength(0);
  });

  it.each(["UPPER", "a/b", "../secrets", "", "a".repeat(254)])("refuses the name %j before any call", async (name) => {
    const { client, calls } = setup(() => json(200, { credspec }));
    expect(await failure(client.getCredSpecContents(name, call()))).toMatchObject({
      code: "ERR_INVALID_CREDSPEC_NAME",
    });
    expect(calls).toHaveLength(0);
  });
});

describe("redirects", () => {
  const redirect = (code: number) =>
    new Response(null, { status: code, headers: { Location: "https://elsewhere.example/allowed" } });

  it.each([301, 302, 303, 307, 308])(
    "refuses a %i from the API server, naming the status, without following or retrying it (500)",
    async (code) => {
      const { client, calls } = setup(() => redirect(code));
      const read = await failure(client.getCredSpecContents("webapp01", call()));
      expect(read).toMatchObject({ code: "ERR_KUBE_API" });
      expect(read.status).toBe(500);
      expect(read.message).toBe(
        `reading GMSACredentialSpec "webapp01": API server answered ${code}, a redirect, which is never followed`,
      );
      expect(read.cause).toMatchObject({ httpStatus: code, location: "https://elsewhere.example/allowed" });
      const review = await failure(client.canUseCredSpec(query, call()));
      expect(review).toMatchObject({ code: "ERR_KUBE_API" });
      expect(review.message).toContain(`API server answered ${code}, a redirect`);
      expect(calls).toHaveLength(2);
    },
  );
});

function setupObserved(script: FakeScript) {
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

describe("the client's observer and tally", () => {
  it("reports each attempt, a retried 503 included, and each cache lookup; the tally counts the same", async () => {
    const { client, attempts, lookups } = setupObserved((call, index) => {
      if (call.method === "POST") return json(201, { status: { allowed: true } });
      return index === 0 ? status(503, "ServiceUnavailable") : json(200, { credspec: { n: 1 } });
    });
    const tally: CallTally = { kubeRequests: 0, cacheHits: 0, cacheMisses: 0 };
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
    const refused = setupObserved(() => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    });
    await expect(
      refused.client.getCredSpecContents("webapp01", { signal: AbortSignal.timeout(5_000) }),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(refused.attempts).toEqual([
      ["get", "gmsacredentialspecs", "error"],
      ["get", "gmsacredentialspecs", "error"],
    ]);
    const hung = setupObserved(() => "hang");
    await expect(hung.client.getCredSpecContents("webapp01", { signal: AbortSignal.timeout(5_000) })).rejects.toThrow(
      /deadline/,
    );
    expect(hung.attempts).toEqual([["get", "gmsacredentialspecs", "timeout"]]);
  });
});
