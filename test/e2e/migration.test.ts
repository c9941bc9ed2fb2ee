/**
 * docs/migration.md's switch from the windows-gmsa chart, step by step, with pods created throughout. The incumbent
 * is test/e2e/fixtures/incumbent-chart (its CRD from crds/, v1alpha1 stored; webapp01 from `credential.enabled`, a
 * release object that its `helm uninstall` deletes). Ours runs in external mode (the functions on loopback), and a
 * dry-run GMSA pod is created every 0.5 s during each step and for 3 s after it: not one may be refused. The step
 * that makes this hold is the adoption: webapp01 is given our release's ownership metadata before the incumbent is
 * uninstalled, and Helm deletes only objects that name the release being uninstalled.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import {
  adminEndpoint,
  applyBaseInfra,
  deleteWebhooks,
  kubeRequest,
  kubeRequestOk,
  loadManifest,
  startFunctions,
  type FunctionsStack,
} from "../../infra/local/index.ts";
import { createHelmRunner, externalTestValues, setHelmOwner, type HelmRunner } from "./support/helm.ts";
import { deleteCrd, deleteNamespace, waitForGmsaWebhooks } from "./support/install-checks.ts";
import { expectNoPodRefusedDuring } from "./support/pod-stream.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "migration";
const NAMESPACE = "gmsa-migration";
const INCUMBENT = { release: "gmsa", namespace: "gmsa-incumbent" };
const RELEASE = "gwm";
const WEBAPP01 = "/apis/windows.k8s.io/v1/gmsacredentialspecs/webapp01";
const FIXTURES = fileURLToPath(new URL("fixtures/", import.meta.url));

let dir = "";
let chart = "";
let stack: FunctionsStack;
let helm: HelmRunner;
let credspec: unknown;

const withPods = (step: () => Promise<void>) => expectNoPodRefusedDuring(cluster, GROUP, step);

const ourValues = (authorizeEnv: Record<string, string>) => ({
  ...externalTestValues(cluster.caPem, stack),
  authorize: { env: authorizeEnv },
  credentialSpecs: [{ name: "webapp01", credspec, serviceAccounts: [{ namespace: "default", name: "gmsa-app" }] }],
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gmsa-migration-"));
  chart = join(dir, "incumbent-chart");
  await cp(join(FIXTURES, "incumbent-chart"), chart, { recursive: true });
  await cp(join(FIXTURES, "windows-gmsa-crd.yaml"), join(chart, "crds", "gmsacredentialspecs.yaml"));
  helm = await createHelmRunner(inject("helm"), cluster.adminKubeconfig);
  stack = await startFunctions(cluster, {
    runtime: "node",
    dir: cluster.dir,
    env: { CREDSPEC_CACHE_TTL_MS: "0", ACCESS_CACHE_TTL_MS: "0" },
  });
  const samples = await loadManifest("samples/credspecs.yaml");
  credspec = (samples.find((o) => o.metadata.name === "webapp01") as unknown as { credspec: unknown }).credspec;
  // The cluster as the incumbent leaves it: its CRD and credspec, its webhooks alone (the base's RBAC for gmsa-app stays).
  await applyBaseInfra(cluster);
  await deleteWebhooks(cluster);
  await deleteCrd(cluster);
  const webhook = {
    caBundle: Buffer.from(cluster.caPem).toString("base64"),
    expandUrl: stack.expandBaseUrl,
    authorizeUrl: stack.authorizeBaseUrl,
  };
  await helm.ok(["install", INCUMBENT.release, chart, "-n", INCUMBENT.namespace, "--create-namespace"], {
    credential: { enabled: true, name: "webapp01", credspec },
    webhook,
  });
  await waitForGmsaWebhooks(cluster, GROUP);
}, 180_000);

afterAll(async () => {
  await helm?.run(["uninstall", RELEASE, "-n", NAMESPACE], { kubeconfig: cluster.adminKubeconfig });
  await helm?.run(["uninstall", INCUMBENT.release, "-n", INCUMBENT.namespace], { kubeconfig: cluster.adminKubeconfig });
  await deleteNamespace(cluster, NAMESPACE);
  await deleteNamespace(cluster, INCUMBENT.namespace);
  await stack?.stop();
  await helm?.close();
  // The other files expect our CRD and samples, as applyBaseInfra leaves them.
  await deleteCrd(cluster);
  await applyBaseInfra(cluster);
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("the switch from the windows-gmsa chart in docs/migration.md, pods created throughout", () => {
  it("1. installs ours beside the incumbent in shadow mode, leaving webapp01 to the incumbent: 0 refused", async () => {
    await withPods(async () => {
      await helm.ok(
        ["install", RELEASE, CHART_DIR, "-n", NAMESPACE, "--create-namespace"],
        ourValues({ ENFORCEMENT: "warn" }),
      );
    });
    const { metadata } = await kubeRequestOk<{ metadata: { annotations?: Record<string, string> } }>(admin, WEBAPP01);
    expect(metadata.annotations?.["meta.helm.sh/release-name"]).toBe(INCUMBENT.release);
  });

  it("2. adopts webapp01 into our release and enforces: 0 refused", async () => {
    await withPods(async () => {
      await setHelmOwner(admin, WEBAPP01, RELEASE, NAMESPACE);
      await helm.ok(["upgrade", RELEASE, CHART_DIR, "-n", NAMESPACE], ourValues({}));
    });
    const { metadata } = await kubeRequestOk<{ metadata: { labels?: Record<string, string> } }>(admin, WEBAPP01);
    expect(metadata.labels?.["app.kubernetes.io/instance"]).toBe(RELEASE);
  });

  it("3. helm uninstall of the incumbent keeps webapp01 and removes its webhooks: 0 refused", async () => {
    await withPods(async () => {
      await helm.ok(["uninstall", INCUMBENT.release, "-n", INCUMBENT.namespace, "--wait"]);
    });
    expect((await kubeRequestOk<{ credspec: unknown }>(admin, WEBAPP01)).credspec).toEqual(credspec);
    const incumbentWebhook = `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${INCUMBENT.release}-webhook`;
    expect((await kubeRequest(admin, incumbentWebhook)).status).toBe(404);
  });
});
