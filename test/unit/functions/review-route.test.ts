import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createReviewCounters } from "../../../functions/metrics.ts";
import type { ReviewHandler } from "../../../functions/review-handlers.ts";
import { createReviewHandler } from "../../../functions/review-route.ts";
import type { AppEnv } from "../../../shared/http/env.ts";
import type { AdmissionReviewResponse } from "../../../shared/admission/response.ts";
import { CredentialsError, CredSpecNotAllowedError, KubeApiError } from "../../../shared/errors.ts";
import { createJsonLogger } from "../../../shared/log.ts";
import { createFakeGmsaClient } from "../../support/fake-gmsa-client.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";

function setup(handle: ReviewHandler) {
  const lines: string[] = [];
  let clock = 1000;
  const counters = createReviewCounters();
  const respond = createReviewHandler("expand", handle, {
    gmsa: createFakeGmsaClient(),
    settings: { randomHostname: false, requestingUser: "off", enforcement: "deny" },
    randomBytes: (n) => new Uint8Array(n),
    logger: createJsonLogger({ level: "debug", write: (l) => lines.push(l), now: () => 0 }),
    now: () => (clock += 7),
    counters,
  });
  const app = new Hono<AppEnv>().post(
    "/expand",
    async (c, next) => {
      c.set("signal", new AbortController().signal);
      await next();
    },
    respond,
  );
  const send = async (review: unknown): Promise<AdmissionReviewResponse> => {
    const res = await app.request("/expand", { method: "POST", body: JSON.stringify(review) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    return (await res.json()) as AdmissionReviewResponse;
  };
  return { send, lines, counters };
}

describe("createReviewHandler", () => {
  it.each(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const)("answers a %s review in its version with the uid echoed", async (apiVersion) => {
    const { send } = setup(() => Promise.resolve({ allowed: true }));
    const reply = await send(buildReview(buildPod(), { apiVersion, uid: "uid-42" }));
    expect(reply).toEqual({ apiVersion, kind: "AdmissionReview", response: { uid: "uid-42", allowed: true } });
  });

  it("turns a plain Error thrown by the handler into a 500 denial without its message, and logs its name", async () => {
    const { send, lines } = setup(() => Promise.reject(new RangeError("secret internals at /etc/kubeconfig")));
    const reply = await send(buildReview(buildPod(), { uid: "uid-7" }));
    expect(reply.response).toMatchObject({ uid: "uid-7", allowed: false, status: { code: 500, reason: "InternalError" } });
    expect(JSON.stringify(reply)).not.toContain("secret internals");
    const log = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(log).toMatchObject({ level: "warn", msg: "review", uid: "uid-7", allowed: false, code: 500, errors: "ERR_INTERNAL", cause: "RangeError" });
    expect(lines.join("\n")).not.toContain("secret internals");
  });

  it("answers a credential failure with the uid only, and logs its detail on the review's line", async () => {
    const detail = 'exec plugin "/opt/bin/kubelogin" exited with code 1: AADSTS700016 tenant 0000-1111';
    const { send, lines } = setup(() => Promise.reject(new CredentialsError(detail)));
    const reply = await send(buildReview(buildPod(), { uid: "uid-9" }));
    expect(reply.response).toMatchObject({ uid: "uid-9", allowed: false, status: { code: 500, reason: "InternalError" } });
    expect(reply.response.status?.message).toContain("could not authenticate to the API server");
    expect(reply.response.status?.message).toContain("uid-9");
    expect(JSON.stringify(reply)).not.toContain("kubelogin");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ uid: "uid-9", errors: "ERR_CREDENTIALS", credentials: detail });
  });

  it("logs one line per review with names, codes and duration, never the pod", async () => {
    const { send, lines, counters } = setup(() =>
      Promise.resolve({ allowed: false, errors: [new CredSpecNotAllowedError("x"), new KubeApiError("y")] }),
    );
    const pod = buildPod({ containers: [{ name: "app", env: [{ name: "PASSWORD", value: "hunter2" }] }] });
    await send(buildReview(pod, { uid: "uid-1", dryRun: true }));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      level: "warn",
      msg: "review",
      function: "expand",
      uid: "uid-1",
      kind: "Pod",
      namespace: "ns1",
      name: "web",
      operation: "CREATE",
      dryRun: true,
      allowed: false,
      code: 500,
      errors: "ERR_CREDSPEC_NOT_ALLOWED,ERR_KUBE_API",
      durationMs: 7,
      kubeRequests: 0,
      cacheHits: 0,
      cacheMisses: 0,
    });
    expect(lines[0]).not.toContain("hunter2");
    expect(counters.snapshot()).toEqual({ expand_reviews_total: 1, expand_denied_500_total: 1 });
  });
});
