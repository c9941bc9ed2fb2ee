/**
 * `kubectl gmsa doctor` through the real kube-apiserver, with the functions registered by URL (infra/deploy/webhooks): it
 * passes on a healthy install, with the Node functions and with the Worker builds; then, for each fault injected, it
 * fails naming that fault and only that fault (every failing line is about it), and passes again once it is undone.
 */
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyFunctionsWebhooks,
  applyObjects,
  createCallerToken,
  kubeRequest,
  kubeRequestOk,
  loadManifest,
  objectPath,
  startCluster,
  type FunctionsStack,
  type KubeEndpoint,
  type KubeObject,
  type LocalCluster,
} from "../../infra/local/index.ts";
import { createCertificateAuthority } from "../../infra/local/pki.ts";
import { formatFindingsText } from "../../cli/doctor/findings.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import {
  createDoctorOperator,
  expectDoctorFault,
  expectDoctorFaultUntil,
  expectDoctorHealthy,
  runDoctor,
  runDoctorJson,
  showFindings as show,
} from "./support/doctor.ts";
import { createPod, deletePods, e2ePod, startRegisteredFunctions } from "./support/pods.ts";
import { binding, sa } from "../support/rbac.ts";
import { buildPod } from "../support/pods.ts";
import { namespace } from "./support/core-objects.ts";

let cluster: LocalCluster;
let admin: KubeEndpoint;
const run = promisify(execFile);
const MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gmsa-webhooks-expand";
const VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gmsa-webhooks-authorize";

const expectHealthy = (args: string[] = []) => expectDoctorHealthy(cluster.adminKubeconfig, { args });
const expectOnly = (fault: RegExp, count = 1) => expectDoctorFault(cluster.adminKubeconfig, fault, { count });
const expectOnlyUntil = (undo: () => Promise<unknown>, fault: RegExp, count = 1) =>
  expectDoctorFaultUntil(cluster.adminKubeconfig, fault, undo, { count });

const setCaBundle = (path: string, pem: string) =>
  kubeRequestOk(admin, path, {
    method: "PATCH",
    contentType: "application/json-patch+json",
    body: [{ op: "replace", path: "/webhooks/0/clientConfig/caBundle", value: Buffer.from(pem).toString("base64") }],
  });

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
    stack = await startRegisteredFunctions(cluster, { runtime });
  }, 180_000);
  afterAll(async () => stack?.stop());

  // The Workers authenticate with JWTs as users of infra/local/jwt-rbac.yaml, which doctor is told (serverless).
  const identity = (fn: FunctionName) =>
    runtime === "worker" ? `gmsa-webhooks:gmsa-webhooks-${fn}` : `system:serviceaccount:gmsa-webhooks:gmsa-${fn}`;
  const identityFlags = runtime === "worker" ? FUNCTION_NAMES.flatMap((fn) => [`--${fn}-identity`, identity(fn)]) : [];

  it("passes every check, both dry-run probes with the time each took", async () => {
    const findings = await expectHealthy(identityFlags);
    console.log(`[doctor] ${runtime} functions:\n${formatFindingsText(findings)}`);
    const byCheck = new Map(findings.map((f) => [f.check, f]));
    const checks = ["webhooks", "certificates", "readyz", "rbac"].flatMap((area) => [
      `${area}/expand`,
      `${area}/authorize`,
    ]);
    for (const check of ["crd", ...checks]) expect(byCheck.get(check)?.status, show(findings)).toMatch(/pass|warn/);
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
    expect(byCheck.get("rbac/authorize")?.message).toBe(
      `authorize's identity ${identity("authorize")} may get gmsacredentialspecs and create localsubjectaccessreviews`,
    );
  });
});

describe("kubectl gmsa doctor names each injected fault, and only that fault (Node functions)", () => {
  let stack: FunctionsStack;
  const restoreWebhooks = () => applyFunctionsWebhooks(cluster, stack);
  beforeAll(async () => {
    stack = await startRegisteredFunctions(cluster);
  }, 180_000);
  afterAll(async () => stack?.stop());

  it("passes for an operator bound only to the roles docs/doctor.md names (infra/deploy/rbac/kubectl-gmsa-*.yaml)", async () => {
    const operator = await createDoctorOperator(cluster, "doctor-operator");
    try {
      // Unbound, the operator may read nothing: doctor says so (and the requests really are the operator's).
      const unbound = await runDoctorJson(operator.kubeconfig);
      expect(unbound.text).toMatch(/^fail .*answered 403/m);
      expect(unbound.code).toBe(1);
      await operator.bind({ probe: "default" });
      const findings = await expectDoctorHealthy(operator.kubeconfig);
      expect(show(findings)).not.toMatch(/^skip /m);
    } finally {
      await operator.remove();
    }
  });

  it("passes where the probes' namespace enforces PodSecurity restricted", async () => {
    const labels = (value: string | null) =>
      kubeRequestOk(admin, "/api/v1/namespaces/default", {
        method: "PATCH",
        contentType: "application/merge-patch+json",
        body: { metadata: { labels: { "pod-security.kubernetes.io/enforce": value } } },
      });
    await labels("restricted");
    try {
      const findings = await expectHealthy();
      expect(findings.find((f) => f.check === "end-to-end/may-use")?.status, show(findings)).toBe("pass");
    } finally {
      await labels(null);
    }
  });

  it("an expired certificate: the caBundle's CA (same key and name, renewed too late)", async () => {
    const caKey = join(cluster.dir, "ca.key");
    const subject = "/" + new X509Certificate(cluster.caPem).subject.split("\n").join("/");
    const [csr, expired] = [join(scratch, "expired.csr"), join(scratch, "expired-ca.crt")];
    await run("openssl", ["req", "-new", "-key", caKey, "-subj", subject, "-out", csr]);
    await run("openssl", ["x509", "-req", "-in", csr, "-signkey", caKey, "-days", "0", "-out", expired]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await setCaBundle(MUTATING, await readFile(expired, "utf8"));
    await expectOnlyUntil(
      restoreWebhooks,
      /^certificates\/expand: .*the caBundle of gmsa-webhooks-expand .* expired on/,
    );
  });

  it("a caBundle of another CA", async () => {
    const other = await createCertificateAuthority(scratch, "another-ca");
    await setCaBundle(VALIDATING, other.certPem);
    await expectOnlyUntil(
      restoreWebhooks,
      /^certificates\/authorize: .*from where doctor runs: the caBundle of gmsa-webhooks-authorize does not verify the certificate it serves/,
    );
  });

  it("an objectSelector that lets a pod's own label skip authorize", async () => {
    const patch = (op: object) =>
      kubeRequestOk(admin, VALIDATING, { method: "PATCH", contentType: "application/json-patch+json", body: [op] });
    const path = "/webhooks/0/objectSelector";
    await patch({ op: "add", path, value: { matchExpressions: [{ key: "skip-gmsa", operator: "DoesNotExist" }] } });
    // The doctor's fix: applying the shipped configuration again would keep a field it does not set.
    const undo = () => patch({ op: "remove", path });
    const [found] = await expectOnlyUntil(undo, /^webhooks\/authorize: .*objectSelector differs from the shipped one/);
    expect(found?.fix).toContain(`[{"op":"remove","path":"${path}"}]`);
  });

  it("authorize's RBAC removed", async () => {
    const binding = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/gmsa-webhooks:authorize";
    await kubeRequestOk(admin, binding, { method: "DELETE" });
    // authorize's own /readyz may say so too, where it checks its RBAC.
    await expectOnlyUntil(
      async () => applyObjects(admin, await loadManifest("rbac/authorize.yaml")),
      /^(rbac\/authorize: authorize's identity system:serviceaccount:gmsa-webhooks:gmsa-authorize may not .*its RBAC is missing|readyz\/authorize: authorize is not ready: .*RBAC)/,
    );
  });

  it("a webhook configuration deleted: exit 1, in text one line per check naming it, no colour off a terminal", async () => {
    await kubeRequestOk(admin, VALIDATING, { method: "DELETE" });
    try {
      await expectOnly(
        /^webhooks\/authorize: no ValidatingWebhookConfiguration holds webhook authorize\.gmsa-webhooks\.windows\.k8s\.io/,
      );
      const result = await runDoctor(cluster.adminKubeconfig);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toMatch(/^FAIL webhooks\/authorize +no ValidatingWebhookConfiguration holds webhook/m);
      expect(result.stdout).toMatch(/^ +fix: apply infra\/deploy\/webhooks/m);
      expect(result.stdout).toMatch(/^1 failed, \d+ warnings, \d+ passed, \d+ skipped$/m);
      expect(result.stdout).not.toContain("\u001b[");
    } finally {
      await restoreWebhooks();
    }
    await expectHealthy();
  });

  it("a credspec without Sid, named with its field", async () => {
    const [sample] = await loadManifest("samples/credspecs.yaml");
    const malformed: KubeObject = structuredClone({ ...sample!, metadata: { name: "doctor-malformed" } });
    delete (malformed["credspec"] as { DomainJoinConfig: { Sid?: string } }).DomainJoinConfig.Sid;
    await applyObjects(admin, [malformed]);
    await expectOnlyUntil(
      () => kubeRequestOk(admin, objectPath(malformed), { method: "DELETE" }),
      /^credspec\/doctor-malformed: GMSACredentialSpec doctor-malformed: credspec\.DomainJoinConfig\.Sid: is required/,
    );
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
    await expectOnlyUntil(async () => {
      await applyObjects(admin, rbac);
      await deletePods(cluster, "doctor");
    }, /^pods\/use: .*pod default\/doctor-web \(service account gmsa-app, credspec webapp01\)/);
  });

  it("a running pod and a Deployment's pod template naming a credspec that does not exist", async () => {
    // Created while no webhook is registered, as pods made before an install (or a deleted credspec) are.
    await kubeRequestOk(admin, VALIDATING, { method: "DELETE" });
    await kubeRequestOk(admin, MUTATING, { method: "DELETE" });
    const missing = { gmsaCredentialSpecName: "doctor-missing" };
    const windows = { nodeSelector: { "kubernetes.io/os": "windows" } };
    const pod = buildPod({ ...e2ePod("doctor", "doctor-orphan"), windowsOptions: missing, spec: windows });
    const labels = { app: "doctor-web" };
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
          spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pod.spec } },
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

  it('a namespace created with windows.k8s.io/disabled: "true" warns with the fix; a binding subject in no possible namespace is passed over', async () => {
    const optOut = namespace("doctor-old-opt-out", { "windows.k8s.io/disabled": "true" });
    // The API server stores it: RBAC checks a ServiceAccount subject's name, never its namespace.
    const odd = binding("doctor-odd-subject", { kind: "ClusterRole", name: "gmsa-use-webapp01" }, [
      sa("app", "Not_A_Namespace"),
    ]);
    await applyObjects(admin, [optOut, odd]);
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
      const nobody = (await runDoctorJson(cluster.adminKubeconfig, ["--credspec", "doctor-nobody"])).findings;
      const probe = nobody.find((f) => f.check === "end-to-end/may-use");
      expect([probe?.status, probe?.message], show(nobody)).toEqual([
        "warn",
        expect.stringMatching(/may use doctor-nobody: nothing to probe with/),
      ]);
    } finally {
      await kubeRequestOk(admin, objectPath(odd), { method: "DELETE" });
      await kubeRequestOk(admin, objectPath(optOut), { method: "DELETE" });
    }
  });

  it("functions with no credential for the API server (their exec plugin cannot mint one)", async () => {
    await stack.stop();
    // Registered without a wait for a review to pass: none can.
    const pluginEnv = { GMSA_MINTER_KUBECONFIG: join(scratch, "missing.kubeconfig") };
    const broken = await startRegisteredFunctions(cluster, { pluginEnv, wait: false });
    try {
      // Named by the functions' /readyz where it checks the credential, else by the probes' fail-closed denials.
      // Both functions are broken: one line each.
      await expectOnly(/^readyz\/\w+: \w+ is not ready: .*no credential for the API server/, 2);
    } finally {
      await broken.stop();
      stack = await startRegisteredFunctions(cluster);
    }
    await expectHealthy();
  }, 180_000);
});
