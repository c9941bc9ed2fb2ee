/**
 * `GET /readyz` against the real kube-apiserver (docs/operations.md, Readiness): the app as the Node runtimes build
 * it (functions/node/deps.ts), with kubeconfigs whose credential is good, missing, refused, or whose RBAC is removed
 * while it runs, or that lacks `get` on `pods`. Service accounts of its own (one bound to authorize's ClusterRole, one
 * to a role without pods), so no other test's identity changes.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  kubeRequest,
  kubeRequestOk,
  objectPath,
} from "../../infra/local/index.ts";
import { FUNCTIONS_NAMESPACE } from "../../infra/local/exec-plugin.ts";
import { writeKubeconfig, type KubeconfigUser } from "../../infra/local/kubeconfig.ts";
import { createApp } from "../../functions/app.ts";
import { buildNodeDeps } from "../../functions/node/deps.ts";
import { FUNCTION_NEEDS, READY_CACHE_MS } from "../../shared/kube/readiness.ts";
import { binding, role, sa } from "../support/rbac.ts";
import { serviceAccount } from "./support/core-objects.ts";

const cluster = inject("cluster");
const ACCOUNT = "e2e-readyz";
const authorizeRole = { kind: "ClusterRole", name: "gmsa-webhooks:authorize" } as const;
const authorizeBinding = binding(ACCOUNT, authorizeRole, [sa(ACCOUNT, FUNCTIONS_NAMESPACE)]);
/** An identity with what authorize calls in every mode, but not `get` on the pods an exec or attach goes into. */
const NO_PODS = "e2e-readyz-no-pods";
const noPodsRole = role(
  NO_PODS,
  FUNCTION_NEEDS.authorize.map(({ verb, group, resource }) => ({
    apiGroups: [group],
    resources: [resource],
    verbs: [verb],
  })),
);
const noPodsBinding = binding(NO_PODS, { kind: "ClusterRole", name: NO_PODS }, [sa(NO_PODS, FUNCTIONS_NAMESPACE)]);
let token: string;
let noPodsToken: string;
const closers: (() => Promise<void>)[] = [];

async function mintToken(account: string): Promise<string> {
  const minted = await kubeRequestOk<{ status: { token: string } }>(
    adminEndpoint(cluster),
    `/api/v1/namespaces/${FUNCTIONS_NAMESPACE}/serviceaccounts/${account}/token`,
    {
      method: "POST",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
    },
  );
  return minted.status.token;
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  await applyObjects(adminEndpoint(cluster), [
    serviceAccount(ACCOUNT, FUNCTIONS_NAMESPACE),
    authorizeBinding,
    serviceAccount(NO_PODS, FUNCTIONS_NAMESPACE),
    noPodsRole,
    noPodsBinding,
  ]);
  [token, noPodsToken] = await Promise.all([mintToken(ACCOUNT), mintToken(NO_PODS)]);
});

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  for (const object of [authorizeBinding, noPodsBinding, noPodsRole])
    await kubeRequest(adminEndpoint(cluster), objectPath(object), { method: "DELETE" });
});

/**
 * The authorize function's app as the Node runtimes build it, with a kubeconfig for `user` (any client-go user
 * entry, none included) and REVIEW_REQUESTING_USER `requestingUser`; its log lines kept.
 */
async function startAuthorize(name: string, user: Record<string, string>, requestingUser = "off") {
  const path = join(cluster.dir, `readyz-${name}.kubeconfig`);
  await writeKubeconfig({ path, server: cluster.server, caPem: cluster.caPem, name, user: user as KubeconfigUser });
  const lines: string[] = [];
  const env = {
    KUBECONFIG: path,
    FUNCTIONS: "authorize",
    REVIEW_REQUESTING_USER: requestingUser,
    CALLER_AUTH: "bearer",
    CALLER_AUTH_TOKENS: "caller-token-for-readyz-e2e-0123",
  };
  const { deps, close } = await buildNodeDeps(env, "node", { write: (line) => lines.push(line) });
  closers.push(close);
  const app = createApp(deps);
  const logs = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    readyz: async () => {
      const response = await app.request("/readyz");
      return { status: response.status, body: await response.text() };
    },
    logs,
    /** The `detail` of the last "not ready" log line. */
    notReadyDetail: () => String(logs().findLast((l) => l["msg"] === "not ready")?.["detail"]),
  };
}

describe("GET /readyz through the real API server", () => {
  it("answers 503 naming no credential when the credential source gives none (an unreadable token file)", async () => {
    const tokenFile = join(cluster.dir, "readyz-empty.token");
    await writeFile(tokenFile, "");
    const fn = await startAuthorize("empty-token-file", { tokenFile });
    expect(await fn.readyz()).toEqual({ status: 503, body: "not ready: no credential for the API server" });
    expect(fn.notReadyDetail()).toContain(`token file "${tokenFile}" is empty`);
  });

  it("answers 503 naming a refused credential (401), never showing the token", async () => {
    const bad = "not-a-token-the-api-server-knows";
    const fn = await startAuthorize("refused", { token: bad });
    const answer = await fn.readyz();
    expect(answer).toEqual({ status: 503, body: "not ready: the API server refused our credential" });
    expect(fn.notReadyDetail()).toContain("answered 401");
    expect(JSON.stringify(fn.logs())).not.toContain(bad);
  });

  it("checks get on pods exactly in the modes that read the pod of an exec or attach (ephemeral, always)", async () => {
    for (const mode of ["ephemeral", "always"]) {
      const withPods = await startAuthorize(`pods-${mode}`, { token }, mode);
      expect(await withPods.readyz()).toEqual({ status: 200, body: "ok" });
      const noPods = await startAuthorize(`no-pods-${mode}`, { token: noPodsToken }, mode);
      expect(await noPods.readyz()).toEqual({
        status: 503,
        body: "not ready: this function's identity lacks RBAC: get pods",
      });
    }
    const off = await startAuthorize("no-pods-off", { token: noPodsToken }, "off");
    expect(await off.readyz()).toEqual({ status: 200, body: "ok" });
  });

  it("answers 200 with a credential the API server accepts and the RBAC authorize needs, then 503 naming the missing permission once that RBAC is removed, within the cache's 10 s", async () => {
    const fn = await startAuthorize("rbac-removed", { token });
    expect(await fn.readyz()).toEqual({ status: 200, body: "ok" });
    await kubeRequestOk(adminEndpoint(cluster), objectPath(authorizeBinding), { method: "DELETE" });
    const removedAt = Date.now();
    let answer = await fn.readyz();
    while (answer.status === 200 && Date.now() - removedAt < READY_CACHE_MS + 5_000) {
      await sleep(500);
      answer = await fn.readyz();
    }
    expect(answer).toEqual({
      status: 503,
      body: "not ready: this function's identity lacks RBAC: get gmsacredentialspecs.windows.k8s.io",
    });
    expect(Date.now() - removedAt).toBeLessThan(READY_CACHE_MS + 5_000);
  }, 30_000);
});
