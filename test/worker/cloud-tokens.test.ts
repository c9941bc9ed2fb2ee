/**
 * The cloud token sources inside workerd: the EKS presigner gives the token Node gives for the same inputs (Web
 * Crypto only), the Azure and Google sources reach stand-ins of their endpoints with the Worker's own fetch, and
 * the deployed Worker build configured with CLOUD_TOKEN=eks through its bindings signs its API calls with it.
 */
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { presignEksToken } from "../../shared/credentials/eks.ts";
import { buildPod, inlined, WEBAPP1_CREDSPEC } from "../support/pods.ts";
import { applyReplyPatch, buildReview } from "../support/reviews.ts";
import { startKubeServer } from "../support/kube-server.ts";
import { createTestPki } from "../support/test-pki.ts";
import { startTokenEndpointServer, type TokenEndpointServer } from "../support/token-endpoint-server.ts";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import { startWorker } from "./support/worker.ts";

// A Worker whose fetch runs one source per request: POST {kind, options, epochMs}.
const ENTRY = `
import { presignEksToken } from "./shared/credentials/eks.ts";
import { createCloudTokenSource } from "./shared/credentials/cloud-token-source.ts";
export default {
  async fetch(request) {
    const { kind, options, epochMs } = await request.json();
    try {
      if (kind === "eks") return Response.json(await presignEksToken(options, epochMs));
      const source = createCloudTokenSource({ kind, ...options }, { shareInFlight: false });
      return Response.json(await source.getCredential());
    } catch (error) {
      return Response.json({ code: error.code, message: error.message }, { status: 500 });
    }
  },
};
`;

const CREDENTIALS = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "FAKE+session/token=",
};

let worker: Miniflare;
let server: TokenEndpointServer;

beforeAll(async () => {
  const bundle = await build({
    stdin: { contents: ENTRY, resolveDir: new URL("../..", import.meta.url).pathname, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["worker", "browser"],
    mainFields: ["module", "main"],
    write: false,
    logLevel: "warning",
  });
  worker = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: "2026-04-01" });
  server = await startTokenEndpointServer(() => ({ status: 500 }));
});
afterAll(async () => {
  await worker.dispose();
  await server.close();
});

async function runInWorker(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await worker.dispatchFetch("http://worker/", { method: "POST", body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("cloud token sources in workerd", () => {
  it("presigns the same EKS token as Node for the same credentials and second", async () => {
    const options = { cluster: "gmsa-prod", region: "eu-west-1", credentials: CREDENTIALS };
    const epochMs = Date.parse("2030-01-01T00:00:00Z");
    const { status, json } = await runInWorker({ kind: "eks", options, epochMs });
    expect(status).toBe(200);
    expect(json).toEqual({ ...(await presignEksToken(options, epochMs)) });
  });

  it("gets an Azure managed identity token and a Google metadata token with the Worker's fetch", async () => {
    const expiresOn = Math.floor(Date.now() / 1000) + 3600;
    server.script = (request) =>
      request.url.pathname === "/msi/token"
        ? { status: 200, body: { access_token: "azure-token", expires_on: String(expiresOn) } }
        : {
            status: 200,
            headers: { "Metadata-Flavor": "Google" },
            body: { access_token: "google-token", expires_in: 3599, token_type: "Bearer" },
          };
    const aks = await runInWorker({
      kind: "aks",
      options: { endpoint: `${server.origin}/msi/token`, identityHeader: "h", resource: "api://aks" },
    });
    expect(aks.json).toEqual({ token: "azure-token", expirationTimestamp: new Date(expiresOn * 1000).toISOString() });
    const gke = await runInWorker({ kind: "gke", options: { host: server.host, serviceAccount: "default" } });
    expect(gke.json).toMatchObject({ token: "google-token" });
    expect(
      server.requests.map((request) => request.headers["x-identity-header"] ?? request.headers["metadata-flavor"]),
    ).toEqual(["h", "Google"]);
  });

  it("refuses a redirect in workerd too, naming the status", async () => {
    server.script = () => ({ status: 307, headers: { Location: "http://127.0.0.1:1/elsewhere" } });
    const { status, json } = await runInWorker({
      kind: "aks",
      options: { endpoint: `${server.origin}/msi/token`, identityHeader: "h", resource: "api://aks" },
    });
    expect(status).toBe(500);
    expect(json).toEqual({
      code: "ERR_CREDENTIALS",
      message: "Azure managed identity endpoint refused: HTTP 307 Temporary Redirect",
    });
  });
});

describe("the expand Worker build with CLOUD_TOKEN=eks in its bindings", () => {
  it("reads the credspec with a k8s-aws-v1. bearer presigned for the cluster, and no JWT_* set", async () => {
    const pki = await createTestPki();
    const api = await startKubeServer({
      ...pki.server,
      credspecs: { webapp1: WEBAPP1_CREDSPEC },
      authenticate: (token) => token?.startsWith("k8s-aws-v1.") === true,
    });
    const callerToken = "caller-token-for-tests-0123456789";
    const kubeconfig = `clusters: [{name: eks, cluster: {server: "${api.url}"}}]
users: [{name: gmsa, user: {}}]
contexts: [{name: eks, context: {cluster: eks, user: gmsa}}]
current-context: eks`;
    const aws = {
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    };
    // The JWT_* vars wrangler.toml sets are left out ("" drops a binding): one credential source only.
    const noJwt = { JWT_ALG: "", JWT_ISSUER: "", JWT_AUDIENCE: "", JWT_SUBJECT: "" };
    const bindings = {
      KUBECONFIG: kubeconfig,
      CALLER_AUTH_TOKENS: callerToken,
      CLOUD_TOKEN: "eks",
      EKS_CLUSTER_NAME: "gmsa-prod",
      AWS_REGION: "eu-west-1",
      ...aws,
      ...noJwt,
    };
    const w = startWorker("expand", bindings, pki.caPem);
    try {
      const pod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "webapp1" } });
      const response = await w.dispatchFetch("https://worker.example/expand?timeout=10s", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${callerToken}` },
        body: JSON.stringify(buildReview(pod)),
      });
      const reply = (await response.json()) as AdmissionReviewResponse;
      expect(reply.response.allowed).toBe(true);
      expect(applyReplyPatch(pod, reply).spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(
        inlined(WEBAPP1_CREDSPEC),
      );
      const bearers = api.requests.map((request) => request.token ?? "");
      expect(bearers).toHaveLength(1);
      const url = new URL(atob(bearers[0]!.slice("k8s-aws-v1.".length).replace(/-/g, "+").replace(/_/g, "/")));
      expect(url.host).toBe("sts.eu-west-1.amazonaws.com");
      expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host;x-k8s-aws-id");
      expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/sts\/aws4_request$/);
      expect(url.searchParams.get("X-Amz-Security-Token")).toBe(CREDENTIALS.sessionToken);
    } finally {
      await w.dispose();
      await api.close();
      await pki.cleanup();
    }
  });
});
