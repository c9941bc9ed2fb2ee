/**
 * The Worker build's JWT token source against the real kube-apiserver: its JWT authenticator (the local
 * cluster's `--authentication-config`) fetches the issuer's discovery document and JWKS, maps `sub` to the
 * username RBAC grants, and refuses what it must. Each Worker is the authorize bundle in workerd, reaching the
 * API server through the front proxy only, with nothing but its JWT_* bindings as a credential; reviews are
 * sent to it directly, and it reads a credspec and creates a LocalSubjectAccessReview for each.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  issueClusterServingCertificate,
  kubeRequest,
  kubeRequestOk,
} from "../../infra/local/index.ts";
import { startFrontProxy, type FrontProxy } from "../../infra/local/front-proxy.ts";
import { createJwtSigningKey, JWT_ALG, JWT_GROUP, jwtKeyId, publishJwks } from "../../infra/local/jwt-issuer-server.ts";
import { stopProcess, waitFor } from "../../infra/local/processes.ts";
import type { StartedFunction } from "../../infra/local/stack-common.ts";
import { bundleWorker, startWorkerFunction, workerJwtBindings } from "../../infra/local/stack-worker.ts";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import { createJwtTokenSource } from "../../shared/credentials/jwt.ts";
import type { TokenSource } from "../../shared/credentials/token-source.ts";
import { buildReview } from "../support/reviews.ts";
import { e2ePod, readCredSpec } from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";

const cluster = inject("cluster");
const callerToken = inject("callerToken");
const JWT_FAILURES =
  /^apiserver_authentication_jwt_authenticator_latency_seconds_count\{[^}]*result="failure"[^}]*\} (\d+)/gm;

let dir: string;
let bundle: string;
let front: FrontProxy;
let good: Record<string, string>;
let review: Record<string, unknown>;
const workers: StartedFunction[] = [];
let count = 0;

/** Starts the authorize Worker with its usual JWT_* bindings overridden by `env`; resolves when /healthz answers. */
async function startAuthorizeWorker(env: Record<string, string>): Promise<string> {
  const n = ++count;
  const worker = await startWorkerFunction(
    {
      cluster,
      fn: "authorize",
      dir,
      logFile: join(dir, `authorize-${n}.log`),
      serving: await issueClusterServingCertificate(cluster, ["127.0.0.1"]),
      callerToken,
      env,
    },
    bundle,
    front,
  );
  workers.push(worker);
  const endpoint = { server: worker.baseUrl, caPem: cluster.caPem };
  const healthy = async () => (await kubeRequest(endpoint, "/healthz", { timeoutMs: 2000 })).status === 200;
  await waitFor(`authorize worker ${n} /healthz`, 60_000, [worker.process], healthy);
  return worker.baseUrl;
}

async function sendReview(baseUrl: string): Promise<AdmissionReviewResponse["response"]> {
  const caller = { server: baseUrl, caPem: cluster.caPem, token: callerToken };
  return (await kubeRequestOk<AdmissionReviewResponse>(caller, "/authorize", { method: "POST", body: review }))
    .response;
}

/** The JWT token source of these JWT_* settings, minting tokens of `lifetimeMs` (default: the source's own). */
function jwtSource(settings: Record<string, string>, lifetimeMs?: number): TokenSource {
  return createJwtTokenSource({
    privateKey: settings.JWT_PRIVATE_KEY!,
    alg: JWT_ALG,
    issuer: settings.JWT_ISSUER!,
    subject: settings.JWT_SUBJECT!,
    audience: settings.JWT_AUDIENCE!,
    ...(lifetimeMs === undefined ? {} : { lifetimeMs }),
    shareInFlight: true,
  });
}

/** What the API server's JWT authenticator made of a token minted with these JWT_* settings (SelfSubjectReview). */
async function whoAmI(
  settings: Record<string, string>,
  source = jwtSource(settings),
): Promise<{ status: number; username?: string; groups?: string[]; token: string }> {
  const credential = await source.getCredential();
  if (!("token" in credential)) throw new Error("the JWT source gave no token");
  const answer = await kubeRequest<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>(
    { server: cluster.server, caPem: cluster.caPem, token: credential.token },
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { method: "POST", body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } },
  );
  return { status: answer.status, ...answer.body.status?.userInfo, token: credential.token };
}

/** JWTs of our issuer the API server refused so far (its own metric). */
async function jwtFailures(): Promise<number> {
  const text = (await kubeRequestOk<string>(adminEndpoint(cluster), "/metrics")).toString();
  return [...text.matchAll(JWT_FAILURES)].reduce((sum, match) => sum + Number(match[1]), 0);
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  dir = await mkdtemp(join(cluster.dir, "worker-jwt-"));
  [bundle, front] = await Promise.all([
    bundleWorker(dir, "authorize"),
    startFrontProxy({ dir, upstream: cluster.server, upstreamCaPem: cluster.caPem }),
  ]);
  good = await workerJwtBindings(cluster, "authorize");
  const webapp01 = await readCredSpec(cluster, "webapp01");
  const pod = buildPod({
    ...e2ePod("worker-jwt", "jwt"),
    serviceAccountName: "gmsa-app",
    windowsOptions: { gmsaCredentialSpecName: "webapp01", gmsaCredentialSpec: JSON.stringify(webapp01) },
  });
  review = buildReview(pod, { namespace: "default" });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => stopProcess(w.process)));
  await front?.close();
  // The issuer publishes the functions' own keys again.
  await publishJwks(
    cluster.jwt,
    await Promise.all(Object.values(cluster.jwt.keyFiles).map((file) => readFile(file, "utf8"))),
  );
  await rm(dir, { recursive: true, force: true });
});

describe("the Worker's JWTs through the real API server's JWT authenticator", () => {
  it("maps the function's sub to its own username and group", async () => {
    expect(await whoAmI(good)).toEqual({
      token: expect.any(String) as unknown,
      status: 201,
      username: "gmsa-webhooks:gmsa-webhooks-authorize",
      groups: [JWT_GROUP, "system:authenticated"],
      uid: "gmsa-webhooks-authorize",
    });
  });

  it("refuses a sub other than the functions' and a lifetime above one hour (claimValidationRules, 401)", async () => {
    expect((await whoAmI({ ...good, JWT_SUBJECT: "someone-else" })).status).toBe(401);
    expect((await whoAmI(good, jwtSource(good, 2 * 3600_000))).status).toBe(401);
  });

  it("allows a review that reads a credspec and creates an access review", async () => {
    const baseUrl = await startAuthorizeWorker({});
    const failuresBefore = await jwtFailures();
    expect(await sendReview(baseUrl)).toMatchObject({ allowed: true });
    expect(await jwtFailures()).toBe(failuresBefore);
  }, 60_000);

  it("replaces a token before it expires: the source the Worker runs, with a 10 s lifetime (the Worker's is fixed at 10 minutes)", async () => {
    const source = jwtSource(good, 10_000);
    const failuresBefore = await jwtFailures();
    const first = await whoAmI(good, source);
    expect(first.status).toBe(201);
    // The first token lived 10 s and was due for replacement after 5 s.
    await sleep(11_000);
    const second = await whoAmI(good, source);
    expect(second.status).toBe(201);
    expect(second.token).not.toBe(first.token);
    // An expired token sent and refused would count: none was.
    expect(await jwtFailures()).toBe(failuresBefore);
  }, 60_000);

  it("keeps working across a key rotation: both keys published, the new kid used", async () => {
    const newKey = await createJwtSigningKey();
    const oldKeys = await Promise.all(Object.values(cluster.jwt.keyFiles).map((file) => readFile(file, "utf8")));
    await publishJwks(cluster.jwt, [...oldKeys, newKey]);
    const rotated = await startAuthorizeWorker({ JWT_PRIVATE_KEY: newKey, JWT_KEY_ID: await jwtKeyId(newKey) });
    expect(await sendReview(rotated)).toMatchObject({ allowed: true });
    const unrotated = await startAuthorizeWorker({});
    expect(await sendReview(unrotated)).toMatchObject({ allowed: true });
  }, 60_000);

  // A wrong iss is no business of our issuer's authenticator (the others refuse it), so only the first two
  // show in its failure count; that they do shows the expiry test's count is not vacuous.
  describe.each([
    ["signed by an unpublished key", async () => ({ JWT_PRIVATE_KEY: await createJwtSigningKey() }), 1],
    ["with a wrong aud", () => Promise.resolve({ JWT_AUDIENCE: "https://not-this-cluster.example.com" }), 1],
    ["with a wrong iss", () => Promise.resolve({ JWT_ISSUER: "https://127.0.0.1:1/not-the-issuer" }), 0],
  ] as const)("a JWT %s", (_name, override, counted) => {
    let env: Record<string, string>;
    beforeAll(async () => {
      env = await override();
    });

    it("is refused by the API server (401)", async () => {
      const failuresBefore = await jwtFailures();
      expect((await whoAmI({ ...good, ...env })).status).toBe(401);
      expect(await jwtFailures()).toBe(failuresBefore + counted);
    });

    it("makes the review a fail-closed 500 that says authentication failed; the log names the refusal; no token or key text", async () => {
      const answer = await sendReview(await startAuthorizeWorker(env));
      expect(answer.allowed).toBe(false);
      expect(answer.status?.code).toBe(500);
      // The pod author learns what failed and where its detail is (docs/security.md, What never reaches a response or a log).
      expect(answer.status?.message).toMatch(/could not authenticate to the API server.*request uid/);
      expect(answer.status?.message).not.toMatch(/eyJ|PRIVATE KEY/);
      const log = join(dir, `authorize-${count}.log`);
      const refusal = /401.*rejected our credential/;
      await waitFor("the review's log line", 10_000, [], async () => refusal.test(await readFile(log, "utf8")));
      expect(await readFile(log, "utf8")).not.toMatch(/eyJ|PRIVATE KEY/);
    });
  });
});
