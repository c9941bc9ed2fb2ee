import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { adminEndpoint, applyBaseInfra, kubeRequest, type KubeEndpoint } from "../../infra/local/index.ts";
import {
  EXEC_PLUGIN_PATH,
  revokeFunctionTokens,
  writeFunctionKubeconfig,
  type ExecCredential,
} from "../../infra/local/exec-plugin.ts";
import { nodeBinary } from "../../infra/build/tools/node-binary.ts";
import { buildLocalSubjectAccessReview } from "../../shared/kube/access-reviews.ts";
import { kubectl } from "./support/kubectl.ts";

const run = promisify(execFile);
const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const as = (token: string): KubeEndpoint => ({ ...admin, token });
const CREDSPECS = "/apis/windows.k8s.io/v1/gmsacredentialspecs";

async function runPlugin(serviceAccount: string, env: Record<string, string> = {}): Promise<ExecCredential> {
  const execInfo = {
    apiVersion: "client.authentication.k8s.io/v1",
    kind: "ExecCredential",
    spec: { interactive: false },
  };
  const { stdout } = await run(nodeBinary(), [EXEC_PLUGIN_PATH, "--service-account", serviceAccount], {
    env: {
      ...process.env,
      GMSA_MINTER_KUBECONFIG: cluster.minterKubeconfig,
      KUBERNETES_EXEC_INFO: JSON.stringify(execInfo),
      ...env,
    },
  });
  return JSON.parse(stdout) as ExecCredential;
}

async function whoAmI(token: string): Promise<{ status: number; username: string | undefined }> {
  const response = await kubeRequest<{ status?: { userInfo?: { username?: string } } }>(
    as(token),
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { method: "POST", body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } },
  );
  return { status: response.status, username: response.body.status?.userInfo?.username };
}

/** The review the authorize function makes (docs/security.md, least privilege per function), built by its own code. */
async function mayUse(token: string, serviceAccount: string, credspec: string) {
  const namespace = "default";
  const response = await kubeRequest<{ status?: { allowed: boolean; denied?: boolean } }>(
    as(token),
    `/apis/authorization.k8s.io/v1/namespaces/${namespace}/localsubjectaccessreviews`,
    { method: "POST", body: buildLocalSubjectAccessReview({ namespace, serviceAccount, credSpecName: credspec }) },
  );
  return { status: response.status, allowed: response.body.status?.allowed === true && !response.body.status.denied };
}

function jwtExpiry(token: string): number {
  const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number };
  return payload.exp * 1000;
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
});

describe("local cluster", () => {
  it(`is ready and serves the Kubernetes version it was built from (${cluster.kubeVersion})`, async () => {
    expect((await kubeRequest(admin, "/readyz")).status).toBe(200);
    const version = await kubeRequest<{ gitVersion: string }>(admin, "/version");
    expect(version.body.gitVersion).toBe(cluster.kubeVersion);
  });

  it("applies the CRD and samples, keeping credspec contents verbatim (HostAccountConfig too)", async () => {
    const list = await kubeRequest<{ items: { metadata: { name: string } }[] }>(admin, CREDSPECS);
    expect(list.body.items.map((item) => item.metadata.name)).toEqual(["webapp01", "webapp02", "webapp03-ccg"]);
    const ccg = await kubeRequest<{ credspec: { ActiveDirectoryConfig: { HostAccountConfig?: unknown } } }>(
      admin,
      `${CREDSPECS}/webapp03-ccg`,
    );
    expect(ccg.body.credspec.ActiveDirectoryConfig.HostAccountConfig).toMatchObject({ PortableCcgVersion: "1" });
  });
});

describe("exec plugin", () => {
  it("prints a v1 ExecCredential whose token authenticates as gmsa-expand", async () => {
    const credential = await runPlugin("gmsa-expand");
    expect(credential).toMatchObject({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential" });
    expect(Date.parse(credential.status.expirationTimestamp)).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(await whoAmI(credential.status.token)).toEqual({
      status: 201,
      username: "system:serviceaccount:gmsa-webhooks:gmsa-expand",
    });
  });

  it("echoes the apiVersion asked for in KUBERNETES_EXEC_INFO (v1beta1)", async () => {
    const execInfo = { apiVersion: "client.authentication.k8s.io/v1beta1", kind: "ExecCredential", spec: {} };
    const credential = await runPlugin("gmsa-expand", { KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) });
    expect(credential.apiVersion).toBe("client.authentication.k8s.io/v1beta1");
  });

  it("advertises GMSA_EXEC_PLUGIN_LIFETIME_SECONDS while the real token lasts at least 600 s, and counts runs", async () => {
    const dir = await mkdtemp(join(cluster.dir, "plugin-"));
    try {
      const countFile = join(dir, "runs");
      const env = { GMSA_EXEC_PLUGIN_LIFETIME_SECONDS: "5", GMSA_EXEC_PLUGIN_COUNT_FILE: countFile };
      const credential = await runPlugin("gmsa-authorize", env);
      await runPlugin("gmsa-authorize", env);
      const advertised = Date.parse(credential.status.expirationTimestamp);
      expect(advertised).toBeGreaterThan(Date.now() - 1000);
      expect(advertised).toBeLessThanOrEqual(Date.now() + 5000);
      expect(jwtExpiry(credential.status.token)).toBeGreaterThanOrEqual(Date.now() + 590_000);
      expect((await readFile(countFile, "utf8")).trim().split("\n")).toEqual([
        expect.stringMatching(/ gmsa-authorize ok$/),
        expect.stringMatching(/ gmsa-authorize ok$/),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("cannot mint for another service account: the minter is least privilege (403, exit 1)", async () => {
    const failed = await runPlugin("default").then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/HTTP 403/);
    expect(failed?.stderr).not.toMatch(/eyJ/); // no token in messages
  });

  it("revoking the bound Secret makes the old token 401 while a new token works", async () => {
    const old = await runPlugin("gmsa-expand");
    expect((await whoAmI(old.status.token)).status).toBe(201);
    expect(await revokeFunctionTokens(cluster, "gmsa-expand")).toBeGreaterThan(0);
    // kube-apiserver caches successful token authentications for 10 s (TokenSuccessCacheTTL in
    // pkg/kubeapiserver/options/authentication.go, no flag): revocation takes effect within that.
    const revoked = async () => expect((await whoAmI(old.status.token)).status).toBe(401);
    await vi.waitFor(revoked, { timeout: 15_000, interval: 250 });
    expect((await whoAmI((await runPlugin("gmsa-expand")).status.token)).status).toBe(201);
  });
});

describe("function identities (infra/deploy/rbac)", () => {
  it("lets expand get credspecs but not list them nor create access reviews (403)", async () => {
    const token = (await runPlugin("gmsa-expand")).status.token;
    expect((await kubeRequest(as(token), `${CREDSPECS}/webapp01`)).status).toBe(200);
    expect((await kubeRequest(as(token), CREDSPECS)).status).toBe(403);
    expect((await mayUse(token, "gmsa-app", "webapp01")).status).toBe(403);
  });

  it("lets authorize review access: gmsa-app may use webapp01; default may not; gmsa-app may not use webapp02", async () => {
    const token = (await runPlugin("gmsa-authorize")).status.token;
    expect((await kubeRequest(as(token), `${CREDSPECS}/webapp01`)).status).toBe(200);
    expect((await kubeRequest(as(token), CREDSPECS)).status).toBe(403);
    expect(await mayUse(token, "gmsa-app", "webapp01")).toEqual({ status: 201, allowed: true });
    expect(await mayUse(token, "default", "webapp01")).toEqual({ status: 201, allowed: false });
    expect(await mayUse(token, "gmsa-app", "webapp02")).toEqual({ status: 201, allowed: false });
  });

  // Needs kubectl on PATH: without one these fail with a message saying so, rather than skip unnoticed.
  describe("through kubectl and writeFunctionKubeconfig", () => {
    let dir = "";
    beforeAll(async () => {
      // Inside the cluster's folder, so the cluster's teardown removes it even after a crash.
      dir = await mkdtemp(join(cluster.dir, "kubeconfig-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("runs the exec plugin for client-go and gets exactly expand's access", async () => {
      const countFile = join(dir, "runs");
      const kubeconfig = await writeFunctionKubeconfig(cluster, {
        serviceAccount: "gmsa-expand",
        path: join(dir, "expand.kubeconfig"),
        countFile,
      });
      const asExpand = (...args: string[]) => kubectl(["--kubeconfig", kubeconfig, ...args]);
      const { stdout } = await asExpand("get", "gmsacredentialspecs", "webapp01", "-o", "jsonpath={.metadata.name}");
      expect(stdout).toBe("webapp01");
      await expect(asExpand("get", "gmsacredentialspecs")).rejects.toMatchObject({ stderr: /forbidden/i });
      expect((await readFile(countFile, "utf8")).trim().split("\n").length).toBeGreaterThanOrEqual(2);
    });
  });
});
