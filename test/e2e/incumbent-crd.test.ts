/**
 * A cluster that ran kubernetes-sigs/windows-gmsa, through the real API server: its CRD (fixtures/windows-gmsa-crd.yaml)
 * applied with kubectl as its deploy script does, the samples created while v1alpha1 was the storage version (so etcd
 * holds them as v1alpha1), then storage moved to v1 as its later CRD does. Ours then arrives each way the docs name
 * (kustomize, the README's plain `helm install`, docs/migration.md's takeover). The functions run without caches, so
 * each review reads the credspec through the API server. Afterwards the CRD is deleted and ours applied again, as the
 * other files expect it.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import {
  adminEndpoint,
  applyBaseInfra,
  applyFunctionsWebhooks,
  deleteWebhooks,
  kubeRequest,
  kubeRequestOk,
  loadManifest,
  startFunctions,
  type FunctionsStack,
} from "../../infra/local/index.ts";
import { createHelmRunner, externalTestValues, setHelmOwner, type HelmRunner } from "./support/helm.ts";
import { CRD_PATH, deleteCrd, deleteNamespace, gmsaPod, waitForGmsaWebhooks } from "./support/install-checks.ts";
import { kubectl } from "./support/kubectl.ts";
import { createPod, parsed } from "./support/pods.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "incumbent-crd";
const NAMESPACE = "gmsa-incumbent-crd";
const RELEASE = "gwi";
const FULLNAME = `${RELEASE}-gmsa-webhooks`;
const FIXTURE = fileURLToPath(new URL("fixtures/windows-gmsa-crd.yaml", import.meta.url));
const INFRA_CRD = fileURLToPath(new URL("../../infra/deploy/crd", import.meta.url));
const VERSIONS = ["v1", "v1alpha1"] as const;

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: { properties: { credspec: Record<string, unknown> } } };
}
interface Crd {
  metadata: { name: string };
  spec: { versions: CrdVersion[] };
  status?: { storedVersions?: string[]; conditions?: { type: string; status: string }[] };
}
interface CredSpecObject {
  apiVersion: string;
  metadata: { name: string };
  credspec: unknown;
}

let dir = "";
let stack: FunctionsStack;
let helm: HelmRunner;

const credSpecs = (version: string) => `/apis/windows.k8s.io/${version}/gmsacredentialspecs`;
const credSpecNames = async (version: string) =>
  (await kubeRequestOk<{ items: CredSpecObject[] }>(admin, credSpecs(version))).items
    .map((i) => i.metadata.name)
    .sort();

const kubectlAsAdmin = (args: string[]) => kubectl(["--kubeconfig", cluster.adminKubeconfig, ...args]);

/** `kubectl apply -f` of `crd` (as JSON, which is YAML), then `ready` (by default: until both versions answer). */
async function applyCrdWithKubectl(crd: Crd, name: string, ready = waitForBothVersions): Promise<void> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(crd));
  await kubectlAsAdmin(["apply", "-f", file]);
  await ready();
}

/** Until the CRD is Established and both versions serve lists (the API server's handlers follow the CRD). */
async function waitForBothVersions(): Promise<void> {
  await vi.waitFor(
    async () => {
      const crd = await kubeRequestOk<Crd>(admin, CRD_PATH);
      expect(crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")).toBe(true);
      for (const version of VERSIONS) expect((await kubeRequest(admin, credSpecs(version))).status, version).toBe(200);
    },
    { timeout: 30_000, interval: 200 },
  );
}

/**
 * The cluster as windows-gmsa leaves it: its CRD, the samples created as v1alpha1 while v1alpha1 was stored, then
 * storage moved to v1. @returns each credspec's contents as the API server stored them.
 */
async function installIncumbent(): Promise<Map<string, unknown>> {
  await deleteCrd(cluster);
  const crd = parse(await readFile(FIXTURE, "utf8")) as Crd;
  await applyCrdWithKubectl(crd, "incumbent-v1alpha1-storage");
  const contents = new Map<string, unknown>();
  for (const sample of await loadManifest("samples/credspecs.yaml")) {
    const created = await kubeRequestOk<CredSpecObject>(admin, credSpecs("v1alpha1"), {
      method: "POST",
      body: { ...sample, apiVersion: "windows.k8s.io/v1alpha1" },
    });
    contents.set(created.metadata.name, created.credspec);
  }
  for (const version of crd.spec.versions) version.storage = version.name === "v1";
  await applyCrdWithKubectl(crd, "incumbent-v1-storage");
  expect((await kubeRequestOk<Crd>(admin, CRD_PATH)).status?.storedVersions).toEqual(["v1alpha1", "v1"]);
  return contents;
}

/**
 * The checks every takeover must pass, registered in the caller's `describe`; `contents` is known once its
 * `beforeAll` ran. `ours`: whether the CRD is now ours (else the incumbent's stays).
 */
function defineTakeoverTests(scenario: string, contents: () => Map<string, unknown>, ours: boolean): void {
  it(`keeps v1alpha1 in status.storedVersions, serves both versions and stores v1${ours ? ", with our schema" : ""}`, async () => {
    const crd = await kubeRequestOk<Crd>(admin, CRD_PATH);
    expect(crd.status?.storedVersions).toEqual(["v1alpha1", "v1"]);
    const versions = Object.fromEntries(
      crd.spec.versions.map((v) => [v.name, { served: v.served, storage: v.storage }]),
    );
    expect(versions).toEqual({ v1: { served: true, storage: true }, v1alpha1: { served: true, storage: false } });
    const [v1, v1alpha1] = VERSIONS.map((name) => crd.spec.versions.find((v) => v.name === name)!);
    expect(v1alpha1?.schema).toEqual(v1?.schema);
    // Ours keeps fields the schema does not list (newer credspec fields are inlined verbatim); the incumbent's prunes them.
    expect(v1?.schema.openAPIV3Schema.properties.credspec["x-kubernetes-preserve-unknown-fields"]).toBe(
      ours ? true : undefined,
    );
  });

  it("reads every credspec stored as v1alpha1 as v1 and as v1alpha1, unchanged", async () => {
    expect(contents().size).toBeGreaterThan(0);
    for (const version of VERSIONS) {
      expect(await credSpecNames(version), version).toEqual([...contents().keys()].sort());
      for (const [name, credspec] of contents()) {
        const object = await kubeRequestOk<CredSpecObject>(admin, `${credSpecs(version)}/${name}`);
        expect(object.apiVersion, `${version} ${name}`).toBe(`windows.k8s.io/${version}`);
        expect(object.credspec, `${version} ${name}`).toEqual(credspec);
      }
    }
  });

  it("accepts a credspec written against v1alpha1 and reads it as v1", async () => {
    const name = `written-as-v1alpha1-${scenario}`;
    const credspec = contents().get("webapp01");
    await kubeRequestOk(admin, credSpecs("v1alpha1"), {
      method: "POST",
      body: { apiVersion: "windows.k8s.io/v1alpha1", kind: "GMSACredentialSpec", metadata: { name }, credspec },
    });
    expect((await kubeRequestOk<CredSpecObject>(admin, `${credSpecs("v1")}/${name}`)).credspec).toEqual(credspec);
    await kubeRequestOk(admin, `${credSpecs("v1")}/${name}`, { method: "DELETE" });
  });

  it("expands and authorizes a pod naming a credspec stored as v1alpha1", async () => {
    await waitForGmsaWebhooks(cluster, GROUP);
    const expanded = await createPod(cluster, gmsaPod(GROUP, `expanded-${scenario}`, "gmsa-app"), { dryRun: true });
    expect(expanded.status, JSON.stringify(expanded.body)).toBe(201);
    expect(parsed(expanded.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(
      contents().get("webapp01"),
    );
    const refused = await createPod(cluster, gmsaPod(GROUP, `refused-${scenario}`), { dryRun: true });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/service account "default".*"webapp01"/s);
  });
}

/**
 * `helm install` of the chart in external mode (the functions on loopback) with `extraValues` on top, and `flags`
 * after the documented command. @returns what helm printed (the chart's NOTES among it).
 */
async function helmInstall(extraValues: Record<string, unknown> = {}, flags: string[] = []): Promise<string> {
  const values = { ...externalTestValues(cluster.caPem, stack), ...extraValues };
  return helm.ok(["install", RELEASE, CHART_DIR, "-n", NAMESPACE, "--create-namespace", ...flags], values);
}

/** The keys of Helm's ownership label and annotations (any release's) on the object at `path`, sorted. */
async function helmMarks(path: string): Promise<string[]> {
  const { metadata } = await kubeRequestOk<{
    metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  }>(admin, path);
  return [...Object.entries(metadata.labels ?? {}), ...Object.entries(metadata.annotations ?? {})]
    .filter(
      ([key, value]) => key.startsWith("meta.helm.sh/") || (key === "app.kubernetes.io/managed-by" && value === "Helm"),
    )
    .map(([key]) => key)
    .sort();
}

/** Removes the release where a test installed one; a test that failed before its install leaves none, which is fine. */
async function helmUninstall(): Promise<void> {
  await helm.run(["uninstall", RELEASE, "-n", NAMESPACE, "--wait"], { kubeconfig: cluster.adminKubeconfig });
  await deleteNamespace(cluster, NAMESPACE);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gmsa-incumbent-crd-"));
  await applyBaseInfra(cluster);
  helm = await createHelmRunner(inject("helm"), cluster.adminKubeconfig);
  stack = await startFunctions(cluster, {
    runtime: "node",
    dir: cluster.dir,
    env: { CREDSPEC_CACHE_TTL_MS: "0", ACCESS_CACHE_TTL_MS: "0" },
  });
  // The kustomize base's webhook configurations, at the functions; the Helm cases replace them with the chart's.
  await applyFunctionsWebhooks(cluster, stack);
});

afterAll(async () => {
  await helm?.run(["uninstall", RELEASE, "-n", NAMESPACE], { kubeconfig: cluster.adminKubeconfig });
  await deleteNamespace(cluster, NAMESPACE);
  await deleteWebhooks(cluster);
  await stack?.stop();
  await helm?.close();
  // A CRD left adopted by this file's Helm release would refuse the other files' installs.
  await deleteCrd(cluster);
  await applyBaseInfra(cluster);
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("taking over windows-gmsa's CRD with objects stored as v1alpha1", () => {
  describe("kubectl apply -k infra/deploy/crd", () => {
    let contents = new Map<string, unknown>();
    beforeAll(async () => {
      contents = await installIncumbent();
      await kubectlAsAdmin(["apply", "-k", INFRA_CRD]);
      await waitForBothVersions();
    });
    defineTakeoverTests("kustomize", () => contents, true);
  });

  describe("the documented helm install, no extra flags, the incumbent's credspecs listed in credentialSpecs", () => {
    let contents = new Map<string, unknown>();
    let notes = "";
    const CREATED = "created-by-the-release";
    const USER = { namespace: NAMESPACE, name: "incumbent-app" };
    const credentialSpecs = () =>
      [...contents].map(([name, credspec]) => ({ name, credspec, serviceAccounts: [USER] }));
    beforeAll(async () => {
      await deleteWebhooks(cluster);
      contents = await installIncumbent();
      notes = await helmInstall({ credentialSpecs: credentialSpecs() });
      await waitForBothVersions();
    });
    afterAll(helmUninstall);
    defineTakeoverTests("helm", () => contents, false);

    it("leaves the CRD and the credspecs to their owner, says so in its notes, and binds use of each as listed", async () => {
      expect(await helmMarks(CRD_PATH)).toEqual([]);
      for (const name of contents.keys()) {
        expect(await helmMarks(`${credSpecs("v1")}/${name}`), name).toEqual([]);
        expect(notes).toMatch(new RegExp(`^  GMSACredentialSpec ${name}$`, "m"));
        const binding = await kubeRequestOk<{ subjects: unknown[] }>(
          admin,
          `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings/${FULLNAME}:use:${name}:${USER.name}`,
        );
        expect(binding.subjects).toEqual([{ kind: "ServiceAccount", ...USER }]);
      }
      expect(notes).toMatch(/^ {2}CustomResourceDefinition gmsacredentialspecs\.windows\.k8s\.io$/m);
    });

    it("helm upgrade with the same values and one more credspec creates only that one", async () => {
      const credspec = contents.get("webapp01");
      const values = {
        ...externalTestValues(cluster.caPem, stack),
        credentialSpecs: [...credentialSpecs(), { name: CREATED, credspec }],
      };
      const upgraded = await helm.ok(["upgrade", RELEASE, CHART_DIR, "-n", NAMESPACE], values);
      expect(upgraded).not.toContain(`GMSACredentialSpec ${CREATED}`);
      expect(await helmMarks(`${credSpecs("v1")}/${CREATED}`)).toEqual([
        "app.kubernetes.io/managed-by",
        "meta.helm.sh/release-name",
        "meta.helm.sh/release-namespace",
      ]);
      expect((await kubeRequestOk<CredSpecObject>(admin, `${credSpecs("v1alpha1")}/${CREATED}`)).credspec).toEqual(
        credspec,
      );
    });

    it("helm uninstall deletes what it created and keeps the CRD and the incumbent's credspecs", async () => {
      await helmUninstall();
      expect((await kubeRequest(admin, `${credSpecs("v1")}/${CREATED}`)).status).toBe(404);
      expect(
        (await kubeRequest(admin, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${FULLNAME}:use:webapp01`)).status,
      ).toBe(404);
      expect((await kubeRequestOk<Crd>(admin, CRD_PATH)).status?.storedVersions).toEqual(["v1alpha1", "v1"]);
      for (const version of VERSIONS)
        expect(await credSpecNames(version), version).toEqual([...contents.keys()].sort());
    });
  });

  it("helm install refuses, naming the fix, a CRD of windows-gmsa's first releases that serves v1alpha1 only", async () => {
    await deleteCrd(cluster);
    const crd = parse(await readFile(FIXTURE, "utf8")) as Crd;
    crd.spec.versions = crd.spec.versions.filter((version) => version.name === "v1alpha1");
    await applyCrdWithKubectl(crd, "incumbent-v1alpha1-only", async () => {
      await kubectlAsAdmin(["wait", "--for=condition=Established", "--timeout=30s", `crd/${crd.metadata.name}`]);
    });
    const refused = await helm.run(["install", RELEASE, CHART_DIR, "-n", NAMESPACE, "--create-namespace"], {
      values: externalTestValues(cluster.caPem, stack),
      kubeconfig: cluster.adminKubeconfig,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /CustomResourceDefinition gmsacredentialspecs\.windows\.k8s\.io \(not this release's\) does not serve windows\.k8s\.io\/v1.*kubectl apply -k infra\/deploy\/crd/,
    );
    await deleteNamespace(cluster, NAMESPACE);
  });

  describe("optionally, the release takes the CRD over (docs/migration.md)", () => {
    let contents = new Map<string, unknown>();
    beforeAll(async () => {
      await deleteWebhooks(cluster);
      contents = await installIncumbent();
      await setHelmOwner(admin, CRD_PATH, RELEASE, NAMESPACE);
      // Helm 4 applies server-side: the adopted CRD's `spec.versions` belongs to the incumbent's field manager until forced.
      await helmInstall({}, ["--force-conflicts"]);
      await waitForBothVersions();
    });
    afterAll(helmUninstall);
    defineTakeoverTests("helm-crd", () => contents, true);

    it("helm uninstall keeps the CRD and every credspec (helm.sh/resource-policy: keep)", async () => {
      await helmUninstall();
      expect(await credSpecNames("v1alpha1")).toEqual([...contents.keys()].sort());
    });
  });
});
