import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createNodeGmsaClient,
  type NodeGmsaClientOptions,
} from "../../../../../functions/node/kube/create-gmsa-client.ts";
import { buildLocalSubjectAccessReview } from "../../../../../shared/kube/access-reviews.ts";
import { KubeConfigurationError, parseKubeSettings } from "../../../../../shared/config/index.ts";
import { startKubeServer, type KubeServer, type Script } from "../../../../support/kube-server.ts";
import { startTokenEndpointServer } from "../../../../support/token-endpoint-server.ts";
import { runCount } from "../../../../support/exec-plugins.ts";
import { tempDir } from "../../../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../../../support/test-pki.ts";
import { execUser, writeKubeconfig } from "../../../support/kubeconfig.ts";

let pki: TestPki;
let server: KubeServer;
let mtls: KubeServer;
const clients: Awaited<ReturnType<typeof createNodeGmsaClient>>[] = [];
const ok: Script = () => ({ status: 200, body: { credspec: { ok: true } } });
const call = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms) });

beforeAll(async () => {
  pki = await createTestPki();
  server = await startKubeServer({ ...pki.server, script: ok });
  mtls = await startKubeServer({ ...pki.server, clientCa: pki.caPem, script: ok });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  server.script = ok;
});
afterAll(async () => {
  await Promise.all([server.close(), mtls.close()]);
  await pki.cleanup();
});

/** The client of a kubeconfig for `target` whose user runs the exec plugin fixture `plugin` with `env`. */
async function nodeClient(
  target: KubeServer,
  plugin: string,
  env: Record<string, string>,
  options: NodeGmsaClientOptions = {},
) {
  const dir = await tempDir();
  const countFile = path.join(dir, "runs");
  const user = execUser(plugin, { COUNT_FILE: countFile, ...env });
  const kubeconfig = await writeKubeconfig(dir, { server: target.url, caPem: pki.caPem, user });
  const { settings } = parseKubeSettings({ KUBECONFIG: kubeconfig, CREDSPEC_CACHE_TTL_MS: "0" });
  const client = await createNodeGmsaClient(settings, options);
  clients.push(client);
  return { ...client, runs: () => runCount(countFile) };
}

describe("createNodeGmsaClient with an exec plugin", () => {
  it("serves 100 concurrent reviews on a cold cache with one plugin run over a few connections", async () => {
    const connectionsBefore = server.connections();
    const { client, runs } = await nodeClient(server, "token", { SLEEP_MS: "200", EXPIRES_IN_MS: "600000" });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => client.getCredSpecContents(`credspec-${i}`, call())),
    );
    expect(results).toHaveLength(100);
    expect(runs()).toBe(1);
    expect(server.connections() - connectionsBefore).toBeLessThanOrEqual(16);
  });

  it("hands the plugin the process environment without our secrets and caller-authentication settings", async () => {
    let seen: Record<string, string> = {};
    const runPlugin: NodeGmsaClientOptions["runPlugin"] = (_command, _args, env) => {
      seen = env;
      const stdout = JSON.stringify({
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        status: { token: "t" },
      });
      return Promise.resolve({ outcome: "exited", exitCode: 0, stdout, stderr: "" });
    };
    const baseEnv = {
      CALLER_AUTH_TOKENS: "t0ken",
      CALLER_AUTH: "bearer",
      JWT_PRIVATE_KEY: "k",
      AWS_ACCESS_KEY_ID: "AKID",
      HOME: "/home/fn",
    };
    const { client } = await nodeClient(server, "token", {}, { runPlugin, baseEnv });
    await client.getCredSpecContents("webapp01", call());
    expect(seen).toMatchObject({ AWS_ACCESS_KEY_ID: "AKID", HOME: "/home/fn" });
    expect(Object.keys(seen).filter((name) => name.startsWith("CALLER_AUTH") || name === "JWT_PRIVATE_KEY")).toEqual(
      [],
    );
  });

  it("presents a client certificate the plugin issued", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "c.crt"), pki.client.cert);
    await writeFile(path.join(dir, "c.key"), pki.client.key);
    const { client } = await nodeClient(mtls, "client-cert", {
      CERT_FILE: path.join(dir, "c.crt"),
      KEY_FILE: path.join(dir, "c.key"),
    });
    expect(await client.getCredSpecContents("webapp01", call())).toEqual({ ok: true });
    expect(mtls.requests.at(-1)?.clientCn).toBe("client");
    expect(mtls.requests.at(-1)?.headers.authorization).toBeUndefined();
  });
});

/** The client of a kubeconfig for the server whose user is `user` (a static token by default). */
async function staticClient(
  env: Record<string, string> = {},
  user: Record<string, unknown> = { token: "static-token" },
) {
  const kubeconfig = await writeKubeconfig(await tempDir(), { server: server.url, caPem: pki.caPem, user });
  const { settings, problems } = parseKubeSettings({ KUBECONFIG: kubeconfig, CREDSPEC_CACHE_TTL_MS: "0", ...env });
  expect(problems).toEqual([]);
  const client = await createNodeGmsaClient(settings);
  clients.push(client);
  return client.client;
}

describe("createNodeGmsaClient over HTTPS with a static token", () => {
  it("sends the LocalSubjectAccessReview body and bearer token", async () => {
    server.script = () => ({ status: 201, body: { status: { allowed: true } } });
    const client = await staticClient();
    const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };
    expect(await client.canUseCredSpec(query, call())).toEqual({ allowed: true, reason: "" });
    const request = server.requests.at(-1)!;
    expect(request.path).toBe("/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews");
    expect(request.headers.authorization).toBe("Bearer static-token");
    expect(JSON.parse(request.body)).toEqual(buildLocalSubjectAccessReview(query));
  });
});

describe("createNodeGmsaClient in a pod", () => {
  it("uses the service account token and re-reads it after a 401", async () => {
    const sa = await tempDir();
    await writeFile(path.join(sa, "token"), "sa-1");
    await writeFile(path.join(sa, "ca.crt"), pki.caPem);
    server.script = (request) => (request.headers.authorization === "Bearer sa-2" ? ok(request, 0) : { status: 401 });
    const { settings } = parseKubeSettings({
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: String(server.port),
    });
    let clock = Date.now();
    const client = await createNodeGmsaClient(settings, {
      homeDir: sa,
      serviceAccountDir: sa,
      now: () => clock,
      monotonic: () => clock,
    });
    clients.push(client);
    await expect(client.client.getCredSpecContents("webapp01", call())).rejects.toMatchObject({
      code: "ERR_CREDENTIALS",
    });
    await writeFile(path.join(sa, "token"), "sa-2\n");
    // The file was re-read once and refused again, so the source backs off for a second.
    await expect(client.client.getCredSpecContents("webapp01", call())).rejects.toThrow(/not retried for another 1s/);
    clock += 1_000;
    expect(await client.client.getCredSpecContents("webapp01", call())).toEqual({ ok: true });
  });
});

describe("createNodeGmsaClient with CLOUD_TOKEN", () => {
  it("gke: sends the metadata server's token as the bearer, fetched once for concurrent and later calls", async () => {
    const metadata = await startTokenEndpointServer(() => ({
      status: 200,
      headers: { "Metadata-Flavor": "Google" },
      body: { access_token: "gke-token-1", expires_in: 3599, token_type: "Bearer" },
    }));
    try {
      const before = server.requests.length;
      const client = await staticClient({ CLOUD_TOKEN: "gke", GCE_METADATA_HOST: metadata.host }, {});
      await Promise.all([client.getCredSpecContents("a", call()), client.getCredSpecContents("b", call())]);
      expect(await client.getCredSpecContents("c", call())).toEqual({ ok: true });
      expect(server.requests.slice(before).map((request) => request.headers.authorization)).toEqual(
        Array(3).fill("Bearer gke-token-1"),
      );
      expect(metadata.requests).toHaveLength(1);
    } finally {
      await metadata.close();
    }
  });

  it("eks: sends a k8s-aws-v1. token presigned for the cluster from the AWS environment", async () => {
    const client = await staticClient(
      {
        CLOUD_TOKEN: "eks",
        EKS_CLUSTER_NAME: "gmsa-prod",
        AWS_REGION: "eu-west-1",
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "secret",
      },
      {},
    );
    await client.getCredSpecContents("webapp01", call());
    const bearer = String(server.requests.at(-1)?.headers.authorization);
    expect(bearer).toMatch(/^Bearer k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(bearer.slice("Bearer k8s-aws-v1.".length), "base64url").toString("utf8"));
    expect(url.host).toBe("sts.eu-west-1.amazonaws.com");
  });

  it("refuses CLOUD_TOKEN beside the user's own credential", async () => {
    const error = await staticClient({ CLOUD_TOKEN: "gke" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeConfigurationError);
    expect((error as KubeConfigurationError).problems).toEqual([
      'kubeconfig context "test": the user has a credential of its own and CLOUD_TOKEN=gke is set too; keep one',
    ]);
  });
});
