/**
 * The cloud token sources inside workerd: the EKS presigner gives the token Node gives for the same inputs (Web
 * Crypto only), and the Azure and Google sources reach stand-ins of their endpoints with the Worker's own fetch
 * (the Worker build with CLOUD_TOKEN=eks: worker.test.ts).
 */
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { presignEksToken } from "../../shared/credentials/eks.ts";
import { startTokenEndpointServer, type TokenEndpointServer } from "../support/token-endpoint-server.ts";

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
