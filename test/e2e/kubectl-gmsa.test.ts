/**
 * `kubectl gmsa who-can-use` and `explain` through the real kube-apiserver, with the Node functions registered as
 * webhooks (REVIEW_REQUESTING_USER=always, so the person matters too). The plugin runs as a real process through the
 * kubectl-gmsa bin (a link of that name, as npm and krew install it), and once through a real kubectl finding it on
 * PATH.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { adminEndpoint, applyBaseInfra, applyObjects, kubeRequest, objectPath } from "../../infra/local/index.ts";
import type { KubeObject } from "../../infra/local/index.ts";
import {
  container,
  createPod,
  e2ePod,
  type Pod,
  type PodOptions,
  readCredSpec,
  useRegisteredFunctions,
} from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";
import { binding, role, sa, user } from "../support/rbac.ts";
import { runChild } from "../support/run-child.ts";
import { namespace, serviceAccount } from "./support/core-objects.ts";
import { linkKubectlGmsa } from "./support/kubectl.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const NAMESPACE = "gmsa-kubectl";
const CREDSPEC = "webapp01";

/** The fields of explain's `-o json` this test reads (docs/kubectl-gmsa.md, explain). */
type Explanation = {
  pod: unknown;
  credSpecs: { name: string; places: string[]; serviceAccount: unknown; person: unknown }[];
  dryRun: unknown;
};

/** The objects this file makes: two service accounts that may use webapp01, one that may not; jane may create pods, not use it; bob may both. */
const OBJECTS: KubeObject[] = [
  namespace(NAMESPACE),
  ...["default", "builder", "reporter", "stranger"].map((name) => serviceAccount(name, NAMESPACE)),
  binding(
    "use-webapp01",
    { kind: "ClusterRole", name: "gmsa-use-webapp01" },
    [sa("builder", NAMESPACE), sa("reporter", NAMESPACE), user("bob")],
    NAMESPACE,
  ),
  role("pod-author", [{ apiGroups: [""], resources: ["pods"], verbs: ["create"] }], NAMESPACE),
  binding("pod-authors", { kind: "Role", name: "pod-author" }, [user("jane"), user("bob")], NAMESPACE),
];

let bin: string;
let binDir: string;

/** Runs `file args` with the admin kubeconfig and stdin, never throwing for an exit status. */
const run = (file: string, args: string[], stdin?: string, env: Record<string, string> = {}) =>
  runChild(file, args, {
    stdin,
    env: { ...process.env, KUBECONFIG: cluster.adminKubeconfig, NO_COLOR: "1", ...env },
    timeout: 60_000,
  });
const plugin = (args: string[], stdin?: string) => run(bin, args, stdin);

const pod = (name: string, serviceAccountName: string, more: PodOptions = {}): Pod =>
  buildPod({
    ...e2ePod("kubectl-gmsa", name),
    namespace: NAMESPACE,
    serviceAccountName,
    windowsOptions: { gmsaCredentialSpecName: CREDSPEC },
    ...more,
  });
const podFile = async (name: string, object: Pod): Promise<string> => {
  const file = path.join(binDir, `${name}.json`);
  await writeFile(file, JSON.stringify(object));
  return file;
};

beforeAll(async () => {
  await applyBaseInfra(cluster);
  await applyObjects(admin, OBJECTS);
  // kubectl runs any executable named kubectl-<plugin> on PATH; node (24, first on PATH in the tests) runs the link.
  binDir = path.join(cluster.dir, "kubectl-gmsa-bin");
  await mkdir(binDir, { recursive: true });
  bin = await linkKubectlGmsa(binDir);
});
useRegisteredFunctions(cluster, { env: { REVIEW_REQUESTING_USER: "always" } });

afterAll(async () => {
  // The namespace stays: without a controller manager it would never finish terminating, and a rerun reuses it.
  for (const object of OBJECTS.slice(1).reverse()) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
});

describe("kubectl gmsa who-can-use", () => {
  it("lists exactly the service accounts bound to use the credspec, one line each (exit 0)", async () => {
    const result = await plugin(["who-can-use", CREDSPEC, "-n", NAMESPACE]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.trim().split("\n");
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([`${NAMESPACE}/builder`, `${NAMESPACE}/reporter`]);
    expect(lines[0]).toContain(`RBAC: allowed by RoleBinding "use-webapp01/${NAMESPACE}"`);
  });

  it("-o json is a list; -A finds the samples' default/gmsa-app too", async () => {
    const result = await plugin(["who-can-use", CREDSPEC, "-A", "-o", "json"]);
    expect(result.code).toBe(0);
    const names = (JSON.parse(result.stdout) as { namespace: string; name: string }[]).map(
      ({ namespace, name }) => `${namespace}/${name}`,
    );
    expect(names).toEqual(
      expect.arrayContaining(["default/gmsa-app", `${NAMESPACE}/builder`, `${NAMESPACE}/reporter`]),
    );
    expect(names).not.toContain(`${NAMESPACE}/stranger`);
    expect(names).not.toContain("default/default");
  });

  it("-o yaml parses to the same list as -o json", async () => {
    const [json, yaml] = await Promise.all([
      plugin(["who-can-use", CREDSPEC, "-n", NAMESPACE, "-o", "json"]),
      plugin(["who-can-use", CREDSPEC, "-n", NAMESPACE, "-o", "yaml"]),
    ]);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it("exits 1 for a credspec that does not exist, saying so", async () => {
    const result = await plugin(["who-can-use", "no-such-credspec", "-n", NAMESPACE]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toBe(
      'kubectl gmsa who-can-use: GMSACredentialSpec "no-such-credspec" does not exist (or the CRD is not installed)\n',
    );
  });

  it("runs through a real kubectl that finds kubectl-gmsa on PATH", async () => {
    const result = await run("kubectl", ["gmsa", "who-can-use", CREDSPEC, "-n", NAMESPACE], undefined, {
      PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ""}`,
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(new RegExp(`^${NAMESPACE}/builder .*\\n${NAMESPACE}/reporter .*\\n$`));
  });
});

describe("kubectl gmsa explain", () => {
  it("on a pod its service account may use: shows what is inlined and the verdict admitted (exit 0)", async () => {
    const file = await podFile("allowed", pod("allowed", "builder"));
    const result = await plugin(["explain", "-f", file, "--as", "bob"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const contents = await readCredSpec(cluster, CREDSPEC);
    expect(result.stdout).toContain(`GMSACredentialSpec "${CREDSPEC}" (pod)`);
    expect(result.stdout).toMatch(new RegExp(`service account ${NAMESPACE}/builder may use it: yes`));
    expect(result.stdout).toContain("bob may use it: yes");
    expect(result.stdout).toContain(
      `expand inlines ${new TextEncoder().encode(JSON.stringify(contents)).length} bytes: ${JSON.stringify(contents)}`,
    );
    expect(result.stdout).toContain("Dry run as bob: admitted (201)");
  });

  it("on a pod whose service account may not use it: the API server's 403 message verbatim (exit 1)", async () => {
    const refused = pod("refused", "stranger");
    const direct = await createPod(cluster, refused, { dryRun: true, namespace: NAMESPACE });
    expect(direct.status).toBe(403);
    const result = await plugin(["explain", "-f", "-"], JSON.stringify(refused));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`service account ${NAMESPACE}/stranger may use it: no`);
    expect(result.stdout).toContain(`refused (403)\n  ${direct.body.message ?? "(none)"}\n`);
  });

  it("--as a user who may not use it: the reviews and the dry run say so (exit 1)", async () => {
    const file = await podFile(
      "as-jane",
      pod("as-jane", "builder", {
        containers: [container("app"), container("sidecar", { gmsaCredentialSpecName: CREDSPEC })],
      }),
    );
    const result = await plugin(["explain", "-f", file, "--as", "jane"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`GMSACredentialSpec "${CREDSPEC}" (pod, container "sidecar")`);
    expect(result.stdout).toContain("jane may use it: no");
    expect(result.stdout).toMatch(/Dry run as jane: refused \(403\)\n {2}.*"jane".*webapp01/);
  });

  it("-o json parses, with the verdict and every finding", async () => {
    const file = await podFile("json", pod("json", "stranger"));
    const result = await plugin(["explain", "-f", file, "--as", "bob", "-o", "json"]);
    expect(result.code).toBe(1);
    const explanation = JSON.parse(result.stdout) as Explanation;
    expect(explanation.pod).toEqual({ namespace: NAMESPACE, name: "json", serviceAccount: "stranger" });
    const [found, ...more] = explanation.credSpecs;
    expect([found?.name, found?.places, more]).toEqual([CREDSPEC, ["pod"], []]);
    expect(found?.serviceAccount).toMatchObject({ allowed: false });
    expect(found?.person).toMatchObject({ allowed: true });
    expect(JSON.stringify(found?.person)).toContain("use-webapp01");
    expect(explanation.dryRun).toMatchObject({ admitted: false, status: 403 });
  });

  // An unknown flag, -o wide and a file that is not a Pod: test/tools/cli/cluster.test.ts and commands.test.ts.
  it.each([
    ["no -f", ["explain"], /-f <file \| -> is required/],
    ["no credspec name", ["who-can-use"], /expected one GMSACredentialSpec name, got 0/],
  ])("usage errors exit 2: %s", async (_, args, message) => {
    const result = await plugin(args);
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toMatch(message);
  });
});
