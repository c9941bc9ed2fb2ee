import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import { createReadinessCheck, READY_CACHE_MS } from "../../../../shared/kube/readiness.ts";
import type { KubeAnswer, KubeRequest, KubeRequester } from "../../../../shared/kube/request.ts";

type Attributes = { verb: string; group: string; resource: string };
type ReadinessCheckOptions = Parameters<typeof createReadinessCheck>[0];

/**
 * A requester that answers each SelfSubjectAccessReview with `answer(attributes)`, and keeps what was asked; `check`
 * runs one readiness check through it (for expand, REVIEW_REQUESTING_USER off, unless `options` say otherwise).
 */
function fakeRequester(answer: (attributes: Attributes) => KubeAnswer | Promise<KubeAnswer>) {
  const asked: KubeRequest[] = [];
  const request: KubeRequester = async (req) => {
    asked.push(req);
    return answer((req.body as { spec: { resourceAttributes: Attributes } }).spec.resourceAttributes);
  };
  const checker = (options: Partial<ReadinessCheckOptions> = {}) =>
    createReadinessCheck({ request, functions: ["expand"], requestingUser: "off", shareInFlight: true, ...options });
  return { asked, checker, check: (options: Partial<ReadinessCheckOptions> = {}) => checker(options)() };
}

const allowed = (allowedValue: boolean, extra: Record<string, unknown> = {}): KubeAnswer => ({
  status: 201,
  body: { status: { allowed: allowedValue, ...extra } },
});

describe("createReadinessCheck", () => {
  it("asks one SelfSubjectAccessReview per need of the functions served, and is ready when all are allowed", async () => {
    const { check, asked } = fakeRequester(() => allowed(true));
    expect(await check({ functions: ["expand", "authorize"] })).toEqual({ ready: true });
    expect(asked.map((r) => [r.method, r.path, r.resource])).toEqual([
      ["POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "selfsubjectaccessreviews"],
      ["POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "selfsubjectaccessreviews"],
    ]);
    expect(asked.map((r) => r.body)).toEqual([
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "get", group: "windows.k8s.io", resource: "gmsacredentialspecs" } },
      },
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: {
          resourceAttributes: { verb: "create", group: "authorization.k8s.io", resource: "localsubjectaccessreviews" },
        },
      },
    ]);
    // expand alone needs get on credspecs only.
    await check();
    expect(asked).toHaveLength(3);
  });

  it.each([
    ["ephemeral", "needs"],
    ["always", "needs"],
    ["off", "leaves out"],
  ] as const)(
    "with REVIEW_REQUESTING_USER %s, authorize's readiness %s get on pods (the pod of an exec or attach); expand's never has it",
    async (requestingUser, verdict) => {
      const readsPods = verdict === "needs";
      const { check, asked } = fakeRequester((a) => allowed(a.resource !== "pods"));
      const asks = (fn: "expand" | "authorize") => check({ functions: [fn], requestingUser });
      const podsAsked = () =>
        asked
          .map((r) => (r.body as { spec: { resourceAttributes: Attributes } }).spec.resourceAttributes)
          .filter((a) => a.resource === "pods");
      expect(await asks("authorize")).toEqual(
        readsPods
          ? {
              ready: false,
              reason: "this function's identity lacks RBAC: get pods",
              detail: "checking readiness: may this function get pods: not allowed",
            }
          : { ready: true },
      );
      expect(podsAsked()).toEqual(readsPods ? [{ verb: "get", group: "", resource: "pods" }] : []);
      expect(await asks("expand")).toEqual({ ready: true });
      expect(podsAsked()).toHaveLength(readsPods ? 1 : 0);
    },
  );

  it.each([
    ["a refused credential (401)", () => ({ status: 401, body: undefined }), "the API server refused our credential"],
    [
      "an anonymous caller (403 on the review)",
      () => ({ status: 403, body: undefined }),
      "the API server did not authenticate this function",
    ],
    ["a 500", () => ({ status: 500, body: undefined }), "the API server answered 500"],
    [
      "an answer without status.allowed",
      () => ({ status: 201, body: {} }),
      "the API server's answer has no status.allowed",
    ],
  ])("is not ready on %s", async (_name, answer: () => KubeAnswer, reason) => {
    expect(await fakeRequester(answer).check()).toMatchObject({ ready: false, reason });
  });

  it("names the permission the identity lacks, also when allowed is overruled by denied", async () => {
    const { check } = fakeRequester((a) => allowed(a.resource !== "localsubjectaccessreviews"));
    expect(await check({ functions: ["authorize"] })).toEqual({
      ready: false,
      reason: "this function's identity lacks RBAC: create localsubjectaccessreviews.authorization.k8s.io",
      detail:
        "checking readiness: may this function create localsubjectaccessreviews.authorization.k8s.io: not allowed",
    });
    expect(await fakeRequester(() => allowed(true, { denied: true })).check()).toMatchObject({
      reason: "this function's identity lacks RBAC: get gmsacredentialspecs.windows.k8s.io",
    });
  });

  it.each([
    [
      "no credential",
      new AdmissionError("token file /var/run/x: ENOENT", { code: "ERR_CREDENTIALS" }),
      "no credential for the API server",
    ],
    [
      "an unreachable API server",
      new AdmissionError("x: API server unreachable (ECONNREFUSED)", { code: "ERR_KUBE_API" }),
      "API server unreachable",
    ],
    [
      "no answer within the deadline",
      new AdmissionError("x: no answer", { code: "ERR_DEADLINE_EXCEEDED" }),
      "API server unreachable",
    ],
  ])("is not ready with %s, the log detail keeping the error's message", async (_name, error, reason) => {
    expect(await fakeRequester(() => Promise.reject(error)).check()).toEqual({
      ready: false,
      reason,
      detail: error.message,
    });
  });

  it(`reuses a good answer for ${READY_CACHE_MS} ms and never a bad one`, async () => {
    let clock = 0;
    let answer = allowed(true);
    const { checker, asked } = fakeRequester(() => answer);
    const check = checker({ monotonicNow: () => clock });
    await check();
    clock = READY_CACHE_MS - 1;
    expect(await check()).toEqual({ ready: true });
    expect(asked).toHaveLength(1);
    clock = READY_CACHE_MS;
    answer = { status: 401, body: undefined };
    expect((await check()).ready).toBe(false);
    expect((await check()).ready).toBe(false);
    expect(asked).toHaveLength(3);
  });

  it("shares one check in flight on Node, and none on Workers", async () => {
    for (const shareInFlight of [true, false]) {
      let release = (): void => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const { checker, asked } = fakeRequester(async () => {
        await gate;
        return allowed(true);
      });
      const check = checker({ shareInFlight });
      const both = Promise.all([check(), check()]);
      release();
      expect(await both).toEqual([{ ready: true }, { ready: true }]);
      expect(asked).toHaveLength(shareInFlight ? 1 : 2);
    }
  });
});
