/**
 * The Worker build (wrangler's bundle for each deployed environment) answering reviews inside workerd,
 * reaching an API server with tokens from the JWT token source.
 */
import { randomBytes } from "node:crypto";
import { decodeJwt, exportJWK, exportPKCS8, generateKeyPair, SignJWT } from "jose";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import { buildJwks } from "../../shared/credentials/jwt.ts";
import { expectNoSecretFragments, responseText } from "../support/no-secrets.ts";
import { buildPod, inlined, WEBAPP1_CREDSPEC } from "../support/pods.ts";
import { applyReplyPatch, buildReview } from "../support/reviews.ts";
import { startKubeServer, verifyJwtWith, type KubeServer } from "../support/kube-server.ts";
import { createTestPki, type TestPki } from "../support/test-pki.ts";
import { startWorker } from "./support/worker.ts";

const ISSUER = "https://gmsa-webhooks.example.com";
const AUDIENCE = "https://kubernetes.example.com";
const CALLER_TOKEN = "caller-token-for-tests-0123456789";

/** A kubeconfig for `server` whose user has no credential of its own, or the `users` lines given. */
const kubeconfigFor = (server: string, users = ["users: [{name: gmsa, user: {}}]"]) =>
  [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: local, cluster: {server: "${server}"}}]`,
    ...users,
    "contexts: [{name: local, context: {cluster: local, user: gmsa}}]",
    "current-context: local",
  ].join("\n");

/** A pod naming webapp1 with the contents expand inlines: what authorize reviews. */
const inlinedPod = () =>
  buildPod({ windowsOptions: { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) } });

let api: KubeServer;
let pki: TestPki;
let secrets: Record<string, string>;
const workers: Miniflare[] = [];

beforeAll(async () => {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const pem = await exportPKCS8(privateKey);
  pki = await createTestPki();
  api = await startKubeServer({
    ...pki.server,
    authenticate: verifyJwtWith(await buildJwks({ privateKey: pem, alg: "ES256" }), {
      issuer: ISSUER,
      audience: AUDIENCE,
    }),
    credspecs: { webapp1: WEBAPP1_CREDSPEC },
    allowed: ["ns1/sa1/webapp1"],
  });
  secrets = {
    KUBECONFIG: kubeconfigFor(api.url),
    CALLER_AUTH_TOKENS: CALLER_TOKEN,
    JWT_PRIVATE_KEY: pem,
    JWT_ALG: "ES256",
    JWT_ISSUER: ISSUER,
    JWT_SUBJECT: "gmsa-webhooks-worker",
    JWT_AUDIENCE: AUDIENCE,
  };
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.dispose()));
  await api.close();
  await pki.cleanup();
});

function worker(env: "expand" | "authorize", overrides: Record<string, string> = {}): Miniflare {
  const w = startWorker(env, secrets, pki.caPem, overrides);
  workers.push(w);
  return w;
}

async function review(
  w: Miniflare,
  path: string,
  body: unknown,
  token: string | null = CALLER_TOKEN,
): Promise<{ status: number; reply: AdmissionReviewResponse }> {
  const res = await w.dispatchFetch(`https://worker.example${path}?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, reply: (await res.json()) as AdmissionReviewResponse };
}

describe("expand Worker (wrangler env expand)", () => {
  it("serves /healthz and names only its own function at /version", async () => {
    const w = worker("expand");
    expect(await (await w.dispatchFetch("https://worker.example/healthz")).text()).toBe("ok");
    const version = (await (await w.dispatchFetch("https://worker.example/version")).json()) as { functions: string[] };
    expect(version.functions).toEqual(["expand"]);
    expect((await w.dispatchFetch("https://worker.example/authorize", { method: "POST" })).status).toBe(404);
  });

  it("inlines the credspec read with a JWT-source token, whose claims the API side verified", async () => {
    const w = worker("expand");
    const pod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "webapp1" } });
    const before = api.requests.length;
    const { status, reply } = await review(w, "/expand", buildReview(pod));
    expect(status).toBe(200);
    expect(reply.response.allowed).toBe(true);
    expect(applyReplyPatch(pod, reply).spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(
      inlined(WEBAPP1_CREDSPEC),
    );
    const verified = api.requests.slice(before).filter((request) => request.answer === 200);
    const claims = verified.map((request) => decodeJwt(request.token ?? ""));
    expect(claims.length).toBeGreaterThan(0);
    expect(claims[0]).toMatchObject({ iss: ISSUER, sub: "gmsa-webhooks-worker", aud: [AUDIENCE] });
    expect((claims[0]?.exp ?? 0) - (claims[0]?.iat ?? 0)).toBeLessThanOrEqual(600);
  });
});

describe("a Worker whose configuration holds secrets but cannot be used", () => {
  // Its own secrets, random so that any 8-character piece of one in an answer can only be an echo.
  const callerToken = randomBytes(30).toString("base64url");
  const kubeToken = randomBytes(30).toString("base64url");
  const metricsToken = randomBytes(30).toString("base64url");
  const kubeconfigWithToken = (server: string, indent = "    ") =>
    kubeconfigFor(server, ["users:", "- name: gmsa", "  user:", `${indent}token: ${kubeToken}`]);

  it.each([
    ["a setting it cannot read (LOG_LEVEL)", () => ({ KUBECONFIG: kubeconfigWithToken(api.url), LOG_LEVEL: "chatty" })],
    // A tab-indented line, a common pasting mistake: YAML parsers quote the offending line, here the token's.
    ["a KUBECONFIG secret that is not valid YAML", () => ({ KUBECONFIG: kubeconfigWithToken(api.url, "\t") })],
  ])("answers 503 to every request for %s, with no piece of any secret in the body or headers", async (_, cause) => {
    const w = worker("expand", {
      ...cause(),
      CALLER_AUTH_TOKENS: `${callerToken},${CALLER_TOKEN}`,
      METRICS_TOKENS: metricsToken,
    });
    const held = [callerToken, CALLER_TOKEN, kubeToken, metricsToken, secrets["JWT_PRIVATE_KEY"]!];
    for (const [method, path] of [
      ["POST", "/expand"],
      ["GET", "/healthz"],
      ["GET", "/metrics"],
    ] as const) {
      const res = await w.dispatchFetch(`https://worker.example${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${callerToken}` },
        ...(method === "POST" ? { body: JSON.stringify(buildReview(buildPod())) } : {}),
      });
      expect(res.status).toBe(503);
      const text = await responseText(res);
      expect(text).toMatch(/misconfigured/);
      expectNoSecretFragments(text, held);
    }
  });
});

describe("authorize Worker (wrangler env authorize)", () => {
  it("allows a pod whose service account may use the credspec and whose contents match", async () => {
    const body = buildReview(inlinedPod(), { apiVersion: "admission.k8s.io/v1beta1", uid: "u-42" });
    const { reply } = await review(worker("authorize"), "/authorize", body);
    expect(reply).toMatchObject({ apiVersion: "admission.k8s.io/v1beta1", response: { uid: "u-42", allowed: true } });
    expect(reply.response.patch).toBeUndefined();
  });
});

describe("a redirect from the API server (issue 23, row 6)", () => {
  it("is never followed: an allowed answer behind a 302 is a fail-closed 500 naming the status, and the lure sees nothing", async () => {
    // The lure answers anything with a credspec and an allowed access review, which a client following redirects
    // would take as the API server's word.
    const lure = await startKubeServer({
      ...pki.server,
      script: () => ({ status: 200, body: { credspec: WEBAPP1_CREDSPEC, status: { allowed: true } } }),
    });
    const redirecting = await startKubeServer({
      ...pki.server,
      script: (request) => ({ status: 302, headers: { Location: `${lure.url}${request.path}` } }),
    });
    try {
      const kubeconfig = secrets["KUBECONFIG"]!.replace(api.url, redirecting.url);
      const { reply } = await review(
        worker("authorize", { KUBECONFIG: kubeconfig }),
        "/authorize",
        buildReview(inlinedPod()),
      );
      expect(reply.response.allowed).toBe(false);
      expect(reply.response.status?.code).toBe(500);
      expect(reply.response.status?.message).toContain("API server answered 302, a redirect, which is never followed");
      expect(redirecting.requests.length).toBeGreaterThan(0);
      expect(lure.requests).toEqual([]);
    } finally {
      await Promise.all([lure.close(), redirecting.close()]);
    }
  });
});

describe("caller authentication in the Worker build, every mode", () => {
  const pod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "webapp1" } });
  const bearerOff = { CALLER_AUTH_TOKENS: "" };

  // No credential at all, in every environment: wrangler-envs.test.ts.
  it("bearer: the right token passes, a wrong one gets 401 before the body or any API call", async () => {
    const w = worker("expand");
    const calls = api.requests.length;
    const headers = { "content-type": "application/json", authorization: "Bearer wrong" };
    const wrong = { method: "POST", headers, body: "{not json" };
    expect((await w.dispatchFetch("https://worker.example/expand", wrong)).status).toBe(401);
    expect(api.requests.length).toBe(calls);
    expect((await review(w, "/expand", buildReview(buildPod()))).status).toBe(200);
  });

  // Each kind of refused token: test/unit/shared/caller-auth/jwt-verifier.test.ts; expiry again here, on workerd's clock.
  it("jwt: a valid token passes; an expired one and one for another audience get 401", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "caller", alg: "ES256" };
    const w = worker("authorize", {
      ...bearerOff,
      CALLER_AUTH: "jwt",
      CALLER_AUTH_JWT_ISSUER: "https://apiserver.example.com",
      CALLER_AUTH_JWT_AUDIENCE: "gmsa-authorize",
      CALLER_AUTH_JWT_JWKS: JSON.stringify({ keys: [jwk] }),
    });
    const sign = (audience: string, expiration: number | string = "5m") =>
      new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "caller" })
        .setIssuer("https://apiserver.example.com")
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(expiration)
        .sign(privateKey);
    const body = buildReview(buildPod());
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    expect((await review(w, "/authorize", body, await sign("gmsa-authorize"))).status).toBe(200);
    expect((await review(w, "/authorize", body, await sign("gmsa-authorize", hourAgo))).status).toBe(401);
    expect((await review(w, "/authorize", body, await sign("someone-else"))).status).toBe(401);
  });

  it("path: only /expand/<secret> reaches the function; a wrong secret gets 401", async () => {
    const secret = "p".repeat(20) + "0123456789abcdef";
    const w = worker("expand", { ...bearerOff, CALLER_AUTH: "path", CALLER_AUTH_PATH_SECRET: secret });
    const { status, reply } = await review(w, `/expand/${secret}`, buildReview(pod), null);
    expect(status).toBe(200);
    expect(reply.response.allowed).toBe(true);
    expect((await review(w, `/expand/${secret}x`, buildReview(pod), null)).status).toBe(401);
  });

  it("mtls (TLS ends at Cloudflare), none and unset (Workers are reachable from the network): refused (503)", async () => {
    const mtls = worker("expand", { ...bearerOff, CALLER_AUTH: "mtls", CALLER_AUTH_CLIENT_CA_FILE: "/ca.pem" });
    expect((await mtls.dispatchFetch("https://worker.example/expand", { method: "POST" })).status).toBe(503);
    const none = worker("expand", { ...bearerOff, CALLER_AUTH: "none" });
    expect((await review(none, "/expand", buildReview(pod), null)).status).toBe(503);
    const unset = worker("expand", { ...bearerOff, CALLER_AUTH: "" });
    expect((await unset.dispatchFetch("https://worker.example/expand", { method: "POST" })).status).toBe(503);
  });
});

describe("the expand Worker build with CLOUD_TOKEN=eks in its bindings", () => {
  it("reads the credspec with a k8s-aws-v1. bearer presigned for the cluster, and no JWT_* set", async () => {
    const eks = await startKubeServer({
      ...pki.server,
      credspecs: { webapp1: WEBAPP1_CREDSPEC },
      authenticate: (token) => token?.startsWith("k8s-aws-v1.") === true,
    });
    try {
      const w = worker("expand", {
        KUBECONFIG: secrets["KUBECONFIG"]!.replace(api.url, eks.url),
        CLOUD_TOKEN: "eks",
        EKS_CLUSTER_NAME: "gmsa-prod",
        AWS_REGION: "eu-west-1",
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        AWS_SESSION_TOKEN: "FAKE+session/token=",
        // The JWT_* settings are left out ("" drops a binding): one credential source only.
        ...Object.fromEntries(Object.keys(secrets).flatMap((name) => (name.startsWith("JWT_") ? [[name, ""]] : []))),
      });
      const pod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "webapp1" } });
      const { reply } = await review(w, "/expand", buildReview(pod));
      expect(reply.response.allowed).toBe(true);
      expect(applyReplyPatch(pod, reply).spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(
        inlined(WEBAPP1_CREDSPEC),
      );
      const bearers = eks.requests.map((request) => request.token ?? "");
      expect(bearers).toHaveLength(1);
      const url = new URL(atob(bearers[0]!.slice("k8s-aws-v1.".length).replace(/-/g, "+").replace(/_/g, "/")));
      expect(url.host).toBe("sts.eu-west-1.amazonaws.com");
      expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/sts\/aws4_request$/);
      expect(url.searchParams.get("X-Amz-Security-Token")).toBe("FAKE+session/token=");
    } finally {
      await eks.close();
    }
  });
});
