/**
 * `kubectl gmsa doctor` through the real kube-apiserver, with the functions registered by URL (infra/deploy/webhooks): it
 * passes on a healthy install, with the Node functions and with the Worker builds; then, for each fault injected, it
 * fails naming that fault and only that fault (every failing line is about it), and passes again once it is undone.
 * It runs on a cluster of its own (see beforeAll).
 */
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyFunctionsWebhooks,
  applyObjects,
  applyWebhooks,
  createCallerToken,
  kubeRequest,
  kubeRequestOk,
  loadManifest,
  startCluster,
  startFunctions,
  type FunctionsStack,
  type KubeEndpoint,
  type KubeObject,
  type LocalCluster,
} from "../../infra/local/index.ts";
import { createCertificateAuthority } from "../../infra/local/pki.ts";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";
import { formatFindingsText, type Finding } from "../../cli/doctor/findings.ts";
import { createDoctorOperator } from "./support/doctor.ts";
import { createPod, deletePods, e2ePod } from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";

let cluster: LocalCluster;
let admin: KubeEndpoint;
const run = promisify(execFile);
const MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gmsa-webhooks-expand";
const VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gmsa-webhooks-authorize";

const failures = (findings: Finding[]) => findings.filter((f) => f.status === "fail");
const show = (findings: Finding[]) => findings.map((f) => `${f.status} ${f.check}: ${f.message}`).join("\n");

/** The real `kubectl-gmsa doctor -o json` with `args` (as the admin unless a kubeconfig is given): findings and exit code. */
async function runDoctorJson(args: string[] = [], kubeconfig?: string): Promise<{ findings: Finding[]; code: number }> {
  const result = await runDoctorBin(["-o", "json", ...args], kubeconfig);
  const { findings } = JSON.parse(result.stdout) as { findings: Finding[] };
  return { findings, code: result.code };
}

/** Runs the doctor until it passes (warnings allowed, exit 0): a fault undone reaches the API server's informers in a moment. */
async function expectHealthy(args: string[] = [], kubeconfig?: string): Promise<Finding[]> {
  let findings: Finding[] = [];
  await vi.waitFor(
    async () => {
      const result = await runDoctorJson(args, kubeconfig);
      findings = result.findings;
      expect(failures(findings), show(findings)).toEqual([]);
      expect(result.code, show(findings)).toBe(0);
    },
    { timeout: 15_000, interval: 500 },
  );
  return findings;
}

/**
 * Runs the real `kubectl-gmsa doctor -o json` and expects exit 1 with exactly `count` failures (one per broken object),
 * each matching `fault`: each fault is named once, by the CLI as operators run it.
 */
async function expectOnly(fault: RegExp, count = 1): Promise<Finding[]> {
  const result = await runDoctorJson();
  const findings = result.findings;
  const failed = failures(findings);
  expect(
    failed.map((f) => `${f.check}: ${f.message}`),
    show(findings),
  ).toEqual(Array.from({ length: count }, (): unknown => expect.stringMatching(fault)));
  expect(result.code, show(findings)).toBe(1);
  return findings;
}

async function jsonPatch(path: string, patch: unknown[]): Promise<void> {
  await kubeRequestOk(admin, path, { method: "PATCH", body: patch, contentType: "application/json-patch+json" });
}

const setCaBundle = (path: string, pem: string) =>
  jsonPatch(path, [
    { op: "replace", path: "/webhooks/0/clientConfig/caBundle", value: Buffer.from(pem).toString("base64") },
  ]);

let scratch: string;

// A cluster of this file's own: the doctor reads every credspec, pod and webhook configuration, so what other files
// leave on the shared cluster would be findings here.
beforeAll(async () => {
  cluster = await startCluster({ webhookCallerToken: createCallerToken() });
  admin = adminEndpoint(cluster);
  await applyBaseInfra(cluster);
  scratch = await mkdtemp(join(tmpdir(), "gmsa-doctor-e2e-"));
});

afterAll(async () => {
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe.each(["node", "worker"] as const)("doctor on a healthy install, %s functions", (runtime) => {
  let stack: FunctionsStack;
  beforeAll(async () => {
    stack = await startFunctions(cluster, { runtime });
    await applyFunctionsWebhooks(cluster, stack);
  }, 180_000);
  afterAll(async () => stack?.stop());

  // The Workers authenticate with JWTs as users of infra/local/jwt-rbac.yaml, which doctor is told (serverless).
  const identities =
    runtime === "worker"
      ? { expand: "gmsa-webhooks:gmsa-webhooks-expand", authorize: "gmsa-webhooks:gmsa-webhooks-authorize" }
      : undefined;
  const identityFlags =
    identities === undefined
      ? []
      : ["--expand-identity", identities.expand, "--authorize-identity", identities.authorize];

  it("passes every check, both dry-run probes with the time each took", async () => {
    const findings = await expectHealthy(identityFlags);
    console.log(`[doctor] ${runtime} functions:\n${formatFindingsText(findings)}`);
    const byCheck = new Map(findings.map((f) => [f.check, f]));
    for (const check of [
      "crd",
      "webhooks/expand",
      "webhooks/authorize",
      "certificates/expand",
      "certificates/authorize",
      "readyz/expand",
      "readyz/authorize",
      "rbac/expand",
      "rbac/authorize",
    ]) {
      expect(byCheck.get(check)?.status, show(findings)).toMatch(/pass|warn/);
    }
    const may = byCheck.get("end-to-end/may-use");
    const mayNot = byCheck.get("end-to-end/may-not-use");
    expect(may?.status, show(findings)).toBe("pass");
    expect(may?.message).toMatch(
      /service account default\/gmsa-app naming webapp01 came back with the contents inlined in \d+ ms/,
    );
    expect(mayNot?.status, show(findings)).toBe("pass");
    expect(mayNot?.message).toMatch(
      /service account default\/default naming webapp01 was refused with 403 by authorize in \d+ ms/,
    );
    expect(may?.ms).toBeGreaterThan(0);
    // The local CA lasts two days: inside the renewal window, a warning and not a failure.
    expect(byCheck.get("certificates/expand")?.message).toMatch(/renewal window|from where doctor runs/);
    const user = identities?.authorize ?? "system:serviceaccount:gmsa-webhooks:gmsa-authorize";
    expect(byCheck.get("rbac/authorize")?.message).toBe(
      `authorize's identity ${user} may get gmsacredentialspecs and create localsubjectaccessreviews`,
    );
  });
});

/** `kubectl gmsa doctor` as an operator runs it: the real bin, named kubectl-gmsa, with the admin kubeconfig unless given one. */
async function runDoctorBin(
  args: string[],
  kubeconfig = cluster.adminKubeconfig,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = join(scratch, "kubectl-gmsa");
  await symlink(join(REPO_ROOT, "cli/gmsa-webhooks.ts"), bin).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, "doctor", "--kubeconfig", kubeconfig, ...args], {
      cwd: REPO_ROOT,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("kubectl gmsa doctor, the bin", () => {
  let stack: FunctionsStack;
  beforeAll(async () => {
    stack = await startFunctions(cluster, { runtime: "node" });
    await applyFunctionsWebhooks(cluster, stack);
  }, 180_000);
  afterAll(async () => stack?.stop());

  it("passes for an operator bound only to the roles docs/doctor.md names (infra/deploy/rbac/kubectl-gmsa-*.yaml)", async () => {
    const operator = await createDoctorOperator(cluster, "doctor-operator");
    try {
      // Unbound, the operator may read nothing: doctor says so (and the requests really are the operator's).
      const unbound = await runDoctorJson([], operator.kubeconfig);
      expect(show(failures(unbound.findings))).toMatch(/answered 403/);
      expect(unbound.code).toBe(1);
      await operator.bind({ probe: "default" });
      // The RBAC authorizer learns of new bindings through its informers.
      const findings = await expectHealthy([], operator.kubeconfig);
      expect(
        findings.filter((f) => f.status === "skip"),
        show(findings),
      ).toEqual([]);
    } finally {
      await operator.remove();
    }
  });

  it("exits 0 on a healthy install and prints the findings as JSON with -o json", async () => {
    const result = await runDoctorBin(["-o", "json"]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const report = JSON.parse(result.stdout) as { findings: Finding[]; summary: Record<string, number> };
    expect(report.summary.fail).toBe(0);
    expect(report.findings.find((f) => f.check === "end-to-end/may-use")?.status).toBe("pass");
  });

  it("exits 1 with one line per check naming the fault, in text without colour when not on a terminal", async () => {
    await kubeRequestOk(admin, VALIDATING, { method: "DELETE" });
    try {
      const result = await runDoctorBin([]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toMatch(
        /^FAIL webhooks\/authorize +no ValidatingWebhookConfiguration holds webhook authorize\.gmsa-webhooks\.windows\.k8s\.io/m,
      );
      expect(result.stdout).toMatch(/^ +fix: apply infra\/deploy\/webhooks/m);
      expect(result.stdout).toMatch(/^1 failed, \d+ warnings, \d+ passed, \d+ skipped$/m);
      expect(result.stdout).not.toContain("\u001b[");
    } finally {
      await applyFunctionsWebhooks(cluster, stack);
    }
  });
});

describe("doctor names each injected fault, and only that fault (Node functions)", () => {
  let stack: FunctionsStack;
  const restoreWebhooks = () => applyFunctionsWebhooks(cluster, stack);
  beforeAll(async () => {
    stack = await startFunctions(cluster, { runtime: "node" });
    await restoreWebhooks();
  }, 180_000);
  afterAll(async () => stack?.stop());

  it("an expired certificate: the caBundle's CA (same key and name, renewed too late)", async () => {
    const caKey = join(cluster.dir, "ca.key");
    const subject = "/" + new X509Certificate(cluster.caPem).subject.split("\n").join("/");
    const expired = join(scratch, "expired-ca.crt");
    await run("openssl", ["req", "-new", "-key", caKey, "-subj", subject, "-out", join(scratch, "expired.csr")]);
    await run("openssl", [
      "x509",
      "-req",
      "-in",
      join(scratch, "expired.csr"),
      "-signkey",
      caKey,
      "-days",
      "0",
      "-out",
      expired,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await setCaBundle(MUTATING, await readFile(expired, "utf8"));
    try {
      const findings = await expectOnly(/^certificates\/expand: .*expired/);
      expect(findings.find((f) => f.check === "certificates/expand" && f.status === "fail")?.message).toMatch(
        /the caBundle of gmsa-webhooks-expand .* expired on/,
      );
    } finally {
      await restoreWebhooks();
    }
    await expectHealthy();
  });

  it("a caBundle of another CA", async () => {
    const other = await createCertificateAuthority(scratch, "another-ca");
    await setCaBundle(VALIDATING, other.certPem);
    try {
      const findings = await expectOnly(
        /^certificates\/authorize: .*the caBundle of gmsa-webhooks-authorize does not verify the certificate it serves/,
      );
      expect(show(findings)).toMatch(/from where doctor runs/);
    } finally {
      await restoreWebhooks();
    }
    await expectHealthy();
  });

  it("authorize's RBAC removed", async () => {
    const binding = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/gmsa-webhooks:authorize";
    await kubeRequestOk(admin, binding, { method: "DELETE" });
    try {
      // authorize's own /readyz may say so too, where it checks its RBAC.
      await expectOnly(
        /^(rbac\/authorize: authorize's identity system:serviceaccount:gmsa-webhooks:gmsa-authorize may not .*its RBAC is missing|readyz\/authorize: authorize is not ready: .*RBAC)/,
      );
    } finally {
      await applyObjects(admin, await loadManifest("rbac/authorize.yaml"));
    }
    await expectHealthy();
  });

  it("a webhook configuration deleted", async () => {
    await kubeRequestOk(admin, VALIDATING, { method: "DELETE" });
    try {
      await expectOnly(
        /^webhooks\/authorize: no ValidatingWebhookConfiguration holds webhook authorize\.gmsa-webhooks\.windows\.k8s\.io/,
      );
    } finally {
      await restoreWebhooks();
    }
    await expectHealthy();
  });

  it("a credspec without Sid, named with its field", async () => {
    const malformed: KubeObject = {
      apiVersion: "windows.k8s.io/v1",
      kind: "GMSACredentialSpec",
      metadata: { name: "doctor-malformed" },
      credspec: {
        CmsPlugins: ["ActiveDirectory"],
        DomainJoinConfig: {
          MachineAccountName: "m",
          Guid: "8b1d7c34-05a5-4a3e-9c3b-6e8f6f0c1d2e",
          DnsTreeName: "contoso.com",
          DnsName: "contoso.com",
          NetBiosName: "CONTOSO",
        },
        ActiveDirectoryConfig: { GroupManagedServiceAccounts: [{ Name: "m", Scope: "contoso.com" }] },
      },
    };
    await applyObjects(admin, [malformed]);
    try {
      await expectOnly(
        /^credspec\/doctor-malformed: GMSACredentialSpec doctor-malformed: credspec\.DomainJoinConfig\.Sid: is required/,
      );
    } finally {
      await kubeRequestOk(admin, "/apis/windows.k8s.io/v1/gmsacredentialspecs/doctor-malformed", { method: "DELETE" });
    }
    await expectHealthy();
  });

  it("a service account without use: its running GMSA pod would not be replaced", async () => {
    const pod = buildPod({
      ...e2ePod("doctor", "doctor-web"),
      serviceAccountName: "gmsa-app",
      windowsOptions: { gmsaCredentialSpecName: "webapp01" },
      spec: { nodeSelector: { "kubernetes.io/os": "windows" } },
    });
    expect((await createPod(cluster, pod)).status).toBe(201);
    const rbac = await loadManifest("samples/rbac.yaml");
    await kubeRequestOk(
      admin,
      "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/gmsa-app-uses-webapp01",
      { method: "DELETE" },
    );
    try {
      await expectOnly(/^pods\/use: .*pod default\/doctor-web \(service account gmsa-app, credspec webapp01\)/);
    } finally {
      await applyObjects(admin, rbac);
      await deletePods(cluster, "doctor");
    }
    await expectHealthy();
  });

  it("authorize's failurePolicy Ignore in enforce mode (kubectl patch), with a fix that works on Helm 4", async () => {
    await jsonPatch(VALIDATING, [{ op: "replace", path: "/webhooks/0/failurePolicy", value: "Ignore" }]);
    try {
      const findings = await expectOnly(
        /^webhooks\/authorize: ValidatingWebhookConfiguration gmsa-webhooks-authorize: failurePolicy is Ignore, not Fail: GMSA pods are admitted unchecked/,
      );
      expect(failures(findings)[0]?.fix).toContain("helm upgrade --force-conflicts");
    } finally {
      await restoreWebhooks();
    }
    await expectHealthy();
  });

  it("a running pod and a Deployment's pod template naming a credspec that does not exist", async () => {
    // Created while no webhook is registered, as pods made before an install (or a deleted credspec) are.
    await kubeRequestOk(admin, VALIDATING, { method: "DELETE" });
    await kubeRequestOk(admin, MUTATING, { method: "DELETE" });
    const missing = { gmsaCredentialSpecName: "doctor-missing" };
    const windows = { nodeSelector: { "kubernetes.io/os": "windows" } };
    const pod = buildPod({ ...e2ePod("doctor", "doctor-orphan"), windowsOptions: missing, spec: windows });
    const deployments = "/apis/apps/v1/namespaces/default/deployments";
    try {
      expect((await createPod(cluster, pod)).status).toBe(201);
      await restoreWebhooks();
      // Deployments are not reviewed (the webhooks take pods): only their pods would be refused.
      await kubeRequestOk(admin, deployments, {
        method: "POST",
        body: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "doctor-web" },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: "doctor-web" } },
            template: {
              metadata: { labels: { app: "doctor-web" } },
              spec: {
                ...windows,
                securityContext: { windowsOptions: missing },
                containers: [{ name: "web", image: "i" }],
              },
            },
          },
        },
      });
      await expectOnly(
        /^pods\/credspecs: 2 running GMSA pods or pod templates name a GMSACredentialSpec that does not exist.*: pod default\/doctor-orphan \(credspec doctor-missing\), Deployment default\/doctor-web \(credspec doctor-missing\)$/,
      );
    } finally {
      await restoreWebhooks();
      await kubeRequest(admin, `${deployments}/doctor-web`, { method: "DELETE" });
      await deletePods(cluster, "doctor");
    }
    await expectHealthy();
  });

  it("a caller credential the functions refuse (rotated on their side only): named with its fix, once", async () => {
    await stack.stop();
    // The API server still sends the cluster's caller token; the functions now accept only another.
    const rotated = await startFunctions(cluster, {
      runtime: "node",
      env: { CALLER_AUTH_TOKENS: createCallerToken() },
    });
    try {
      await applyWebhooks(cluster, {
        expandUrl: rotated.expandBaseUrl,
        authorizeUrl: rotated.authorizeBaseUrl,
        caBundlePem: cluster.caPem,
      });
      await vi.waitFor(
        async () => {
          const findings = await expectOnly(
            /^end-to-end\/may-use: .* expand refuses the caller credential the API server sends \(401\)/,
          );
          expect(failures(findings)[0]?.fix).toMatch(/CALLER_AUTH_TOKENS or CALLER_AUTH_PATH_SECRET/);
        },
        { timeout: 15_000, interval: 1_000 },
      );
    } finally {
      await rotated.stop();
      stack = await startFunctions(cluster, { runtime: "node" });
      await restoreWebhooks();
    }
    await expectHealthy();
  }, 180_000);

  it('a namespace created with windows.k8s.io/disabled: "true" warns with the fix; a binding subject in no possible namespace is passed over', async () => {
    const namespace = "/api/v1/namespaces/doctor-old-opt-out";
    const binding = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/doctor-odd-subject";
    await applyObjects(admin, [
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "doctor-old-opt-out", labels: { "windows.k8s.io/disabled": "true" } },
      },
      // The API server stores it: RBAC checks a ServiceAccount subject's name, never its namespace.
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "doctor-odd-subject" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gmsa-use-webapp01" },
        subjects: [{ kind: "ServiceAccount", name: "app", namespace: "Not_A_Namespace" }],
      },
    ]);
    try {
      const findings = await expectHealthy();
      const label = findings.find((f) => f.check === "namespaces/opt-out-label");
      expect([label?.status, label?.message], show(findings)).toEqual([
        "warn",
        expect.stringMatching(/review GMSA pods in doctor-old-opt-out$/),
      ]);
      expect(label?.fix).toMatch(/^kubectl label namespace doctor-old-opt-out windows\.k8s\.io\/disabled-;/);
      expect(findings.find((f) => f.check === "end-to-end/may-use")?.status, show(findings)).toBe("pass");
      // A credspec nobody may use makes doctor ask about every bound subject, the odd one included.
      const nobody = (await runDoctorJson(["--credspec", "doctor-nobody"])).findings;
      const probe = nobody.find((f) => f.check === "end-to-end/may-use");
      expect([probe?.status, probe?.message], show(nobody)).toEqual([
        "warn",
        expect.stringMatching(/may use doctor-nobody: nothing to probe with/),
      ]);
    } finally {
      await kubeRequestOk(admin, binding, { method: "DELETE" });
      await kubeRequestOk(admin, namespace, { method: "DELETE" });
    }
  });

  it("functions with no credential for the API server (their exec plugin cannot mint one)", async () => {
    await stack.stop();
    const broken = await startFunctions(cluster, {
      runtime: "node",
      pluginEnv: { GMSA_MINTER_KUBECONFIG: join(scratch, "missing.kubeconfig") },
    });
    try {
      await applyWebhooks(cluster, {
        expandUrl: broken.expandBaseUrl,
        authorizeUrl: broken.authorizeBaseUrl,
        caBundlePem: cluster.caPem,
      });
      // Named by the functions' /readyz where it checks the credential, else by the probes' fail-closed denials.
      // Both functions are broken: one line each.
      await expectOnly(/^readyz\/\w+: \w+ is not ready: .*no credential for the API server/, 2);
    } finally {
      await broken.stop();
      stack = await startFunctions(cluster, { runtime: "node" });
      await restoreWebhooks();
    }
    await expectHealthy();
  }, 180_000);
});
