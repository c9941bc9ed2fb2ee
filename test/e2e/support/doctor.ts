/**
 * `kubectl gmsa doctor` for e2e tests: the real CLI run as an operator runs it, polled until it names a fault or
 * passes; and an operator of its own, a ServiceAccount with a token the API server issued, in a kubeconfig the CLI is
 * run with, so every request (access reviews included) is the operator's, not the admin's impersonating it.
 */
import { dirname, join } from "node:path";
import { expect, vi } from "vitest";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import type { Finding } from "../../../cli/doctor/findings.ts";
import {
  adminEndpoint,
  applyObjects,
  kubeRequest,
  kubeRequestOk,
  loadManifest,
  objectPath,
  type KubeObject,
  type LocalClusterInfo,
} from "../../../infra/local/index.ts";
import { writeKubeconfig } from "../../../infra/local/kubeconfig.ts";
import { binding, sa } from "../../support/rbac.ts";
import { runChild } from "../../support/run-child.ts";
import { serviceAccount } from "./core-objects.ts";
import { linkKubectlGmsa } from "./kubectl.ts";

/** Where an operator's namespaced roles are bound. */
export interface OperatorNamespaces {
  /** Where the probes' pods are dry-run created (gmsa-webhooks:kubectl-gmsa-dry-run). */
  probe: string;
  /** Where the functions' Services are, for /readyz through the service proxy (gmsa-webhooks:kubectl-gmsa-doctor-proxy). */
  functions?: string;
}

/** Where the operator's ServiceAccount lives. */
const OPERATOR_NAMESPACE = "default";

/**
 * Creates the ServiceAccount `name` and a kubeconfig holding a one-hour token of it; `bind` applies the roles
 * docs/doctor.md names (infra/deploy/rbac/kubectl-gmsa-reader.yaml and kubectl-gmsa-doctor.yaml), bound to it alone as
 * docs/doctor.md says to bind them; `remove` deletes what was applied, the ServiceAccount included.
 */
export async function createDoctorOperator(cluster: LocalClusterInfo, name: string) {
  const admin = adminEndpoint(cluster);
  const account = serviceAccount(name, OPERATOR_NAMESPACE);
  await applyObjects(admin, [account]);
  const issued = await kubeRequestOk<{ status: { token: string } }>(admin, `${objectPath(account)}/token`, {
    method: "POST",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  const kubeconfig = await writeKubeconfig({
    path: join(cluster.dir, `${name}.kubeconfig`),
    server: cluster.server,
    caPem: cluster.caPem,
    name,
    user: { token: issued.status.token },
  });
  const applied: KubeObject[] = [];
  return {
    kubeconfig,
    async bind(namespaces: OperatorNamespaces): Promise<void> {
      const roles = [
        ...(await loadManifest("rbac/kubectl-gmsa-reader.yaml")),
        ...(await loadManifest("rbac/kubectl-gmsa-doctor.yaml")),
      ];
      const bind = (role: string, namespace?: string): KubeObject =>
        binding(
          `${role.replace(":", "-")}-${name}`,
          { kind: "ClusterRole", name: role },
          [sa(name, OPERATOR_NAMESPACE)],
          namespace,
        );
      const bindings = [
        bind("gmsa-webhooks:kubectl-gmsa-reader"),
        bind("gmsa-webhooks:kubectl-gmsa-doctor"),
        bind("gmsa-webhooks:kubectl-gmsa-dry-run", namespaces.probe),
        ...(namespaces.functions === undefined
          ? []
          : [bind("gmsa-webhooks:kubectl-gmsa-doctor-proxy", namespaces.functions)]),
      ];
      await applyObjects(admin, [...roles, ...bindings]);
      applied.push(...bindings, ...roles);
    },
    async remove(): Promise<void> {
      for (const object of [...applied, account]) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
    },
  };
}

/**
 * `kubectl gmsa doctor` as an operator runs it: the real CLI through a link named kubectl-gmsa (beside `kubeconfig`),
 * as `kubeconfig`'s user; never throws for an exit status.
 */
export async function runDoctor(kubeconfig: string, args: string[] = []) {
  const bin = await linkKubectlGmsa(dirname(kubeconfig));
  return runChild(process.execPath, [bin, "doctor", "--kubeconfig", kubeconfig, ...args], { cwd: REPO_ROOT });
}

/** {@link runDoctor} with `-o json`: the findings, the exit code, and the findings as lines for assertion messages. */
export async function runDoctorJson(kubeconfig: string, args: string[] = []) {
  const { stdout, code } = await runDoctor(kubeconfig, ["-o", "json", ...args]);
  const { findings } = JSON.parse(stdout) as { findings: Finding[] };
  return { findings, code, text: showFindings(findings) };
}

/** Findings as `status check: message` lines, for assertion messages. */
export const showFindings = (findings: Finding[]) =>
  findings.map((f) => `${f.status} ${f.check}: ${f.message}`).join("\n");

/**
 * Runs doctor until it exits with `code` and its failures, as `check: message` lines, are `count` lines matching
 * `fault` (none for code 0); @returns the findings. Polled: the API server's admission plugins and authorizer see
 * changes to webhooks and RBAC through informers.
 */
async function expectDoctor(
  kubeconfig: string,
  args: string[],
  code: number,
  fault: RegExp,
  count: number,
  timeoutMs: number,
) {
  let findings: Finding[] = [];
  await vi.waitFor(
    async () => {
      const run = await runDoctorJson(kubeconfig, args);
      findings = run.findings;
      const failed = findings.filter((f) => f.status === "fail").map((f) => `${f.check}: ${f.message}`);
      expect(failed, run.text).toEqual(Array.from({ length: count }, (): unknown => expect.stringMatching(fault)));
      expect(run.code, run.text).toBe(code);
    },
    { timeout: timeoutMs, interval: 1_000 },
  );
  return findings;
}

/** Polls doctor (`args`) until it passes, warnings allowed (exit 0); @returns the findings. */
export function expectDoctorHealthy(kubeconfig: string, { args = [] as string[], timeoutMs = 30_000 } = {}) {
  return expectDoctor(kubeconfig, args, 0, /^$/, 0, timeoutMs);
}

/**
 * Polls doctor until it exits 1 naming `fault` once per broken object (`count`, default 1) and nothing else, as
 * `check: message`; @returns the failed findings.
 */
export async function expectDoctorFault(kubeconfig: string, fault: RegExp, { count = 1, timeoutMs = 30_000 } = {}) {
  return (await expectDoctor(kubeconfig, [], 1, fault, count, timeoutMs)).filter((f) => f.status === "fail");
}

/**
 * {@link expectDoctorFault} while a fault is in place, then `undo` (however that went) and {@link expectDoctorHealthy}
 * again (`healthyMs`: its timeout); @returns the failed findings.
 */
export async function expectDoctorFaultUntil(
  kubeconfig: string,
  fault: RegExp,
  undo: () => Promise<unknown>,
  { count = 1, timeoutMs = 30_000, healthyMs = 30_000 } = {},
) {
  let failed;
  try {
    failed = await expectDoctorFault(kubeconfig, fault, { count, timeoutMs });
  } finally {
    await undo();
  }
  await expectDoctorHealthy(kubeconfig, { timeoutMs: healthyMs });
  return failed;
}
