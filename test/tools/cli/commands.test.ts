/** who-can-use and explain against a scripted API server: what they ask, what they print, how they exit. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runExplainCommand } from "../../../cli/explain.ts";
import { EXIT_OK, EXIT_USAGE } from "../../../cli/io.ts";
import { runWhoCanUseCommand } from "../../../cli/who-can-use.ts";
import {
  startKubeServer,
  type KubeServer,
  type RecordedRequest,
  type ScriptedAnswer,
} from "../../support/kube-server.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../support/test-pki.ts";
import { fakeIo } from "../../support/fake-io.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";

const SECRET_INPUT = "contoso.com:gmsaccg:do-not-print";
const CONTENTS = {
  CmsPlugins: ["ActiveDirectory"],
  ActiveDirectoryConfig: { HostAccountConfig: { PluginInput: SECRET_INPUT } },
};

let pki: TestPki;
let server: KubeServer;
let env: Record<string, string>;
/** Who may use what, by LocalSubjectAccessReview user; the dry run's answer. */
let allowed: Set<string>;
let dryRun: ScriptedAnswer;
let whoAmI: ScriptedAnswer;

function answer(request: RecordedRequest): ScriptedAnswer {
  const url = new URL(request.path, "https://x");
  if (url.pathname === "/apis/windows.k8s.io/v1/gmsacredentialspecs/webapp01")
    return { status: 200, body: { credspec: CONTENTS } };
  if (url.pathname.startsWith("/apis/windows.k8s.io/"))
    return { status: 404, body: { kind: "Status", reason: "NotFound", details: { name: "x" } } };
  if (url.pathname === "/api/v1/namespaces/web/serviceaccounts") {
    // Two pages, as the API server pages a long list.
    const page = url.searchParams.get("continue") === null ? ["a", "b"] : ["c"];
    return {
      status: 200,
      body: {
        items: page.map((name) => ({ metadata: { name, namespace: "web" } })),
        metadata: page.length === 2 ? { continue: "next" } : {},
      },
    };
  }
  if (url.pathname.endsWith("/localsubjectaccessreviews")) {
    const user = (JSON.parse(request.body) as { spec: { user: string } }).spec.user;
    return {
      status: 201,
      body: { status: { allowed: allowed.has(user), reason: allowed.has(user) ? "RBAC: allowed" : "" } },
    };
  }
  if (url.pathname === "/apis/authentication.k8s.io/v1/selfsubjectreviews") return whoAmI;
  if (url.pathname === "/api/v1/namespaces/web/pods" && url.searchParams.get("dryRun") === "All") return dryRun;
  return { status: 500, body: {} };
}

beforeAll(async () => {
  pki = await createTestPki();
  server = await startKubeServer({ ...pki.server, script: answer });
  const dir = await tempDir();
  const user = { token: "secret-admin-token" };
  env = {
    KUBECONFIG: await writeKubeconfig(dir, { server: server.url, caPem: pki.caPem, user, namespace: "web" }),
    HOME: dir,
  };
});
beforeEach(() => {
  allowed = new Set(["system:serviceaccount:web:a", "system:serviceaccount:web:c", "admin"]);
  dryRun = { status: 201, body: { kind: "Pod" }, headers: { Warning: '299 - "gmsa: pod inlined"' } };
  whoAmI = { status: 201, body: { status: { userInfo: { username: "admin", groups: ["system:masters"] } } } };
});
afterAll(async () => {
  await server.close();
  await pki.cleanup();
});

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p" },
  spec: {
    serviceAccountName: "a",
    securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp01" } },
    containers: [{ name: "app" }],
  },
};

describe("who-can-use", () => {
  it("asks about every service account of every page and lists those allowed (0)", async () => {
    const io = fakeIo({ env });
    expect(await runWhoCanUseCommand(["webapp01"], io)).toBe(EXIT_OK);
    expect(io.out).toBe("web/a  RBAC: allowed\nweb/c  RBAC: allowed\n");
    expect(io.err).toBe("");
  });

  it("prints a list for -o json", async () => {
    const io = fakeIo({ env });
    expect(await runWhoCanUseCommand(["webapp01", "-o", "json"], io)).toBe(EXIT_OK);
    expect(JSON.parse(io.out)).toEqual([
      { namespace: "web", name: "a", reason: "RBAC: allowed" },
      { namespace: "web", name: "c", reason: "RBAC: allowed" },
    ]);
  });

  // An unknown credspec (exit 1, named on stderr): test/e2e/kubectl-gmsa.test.ts, against a real API server.
  it("says when nobody may (0)", async () => {
    allowed = new Set();
    const io = fakeIo({ env });
    expect(await runWhoCanUseCommand(["webapp01"], io)).toBe(EXIT_OK);
    expect(io.out).toBe('No service account in namespace "web" may use GMSACredentialSpec "webapp01" (3 asked).\n');
  });

  it("refuses -A with -n (2)", async () => {
    const io = fakeIo({ env });
    expect(await runWhoCanUseCommand(["webapp01", "-A", "-n", "web"], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain("-A and -n exclude each other");
  });
});

describe("explain", () => {
  it("shows both reviews, what expand inlines without PluginInput, and the dry run's warnings (0)", async () => {
    const io = fakeIo({ env, stdin: JSON.stringify(POD) });
    expect(await runExplainCommand(["-f", "-"], io)).toBe(EXIT_OK);
    expect(io.out).toContain("service account web/a may use it: yes  (RBAC: allowed)\n    admin may use it: yes");
    expect(io.out).toContain(
      `expand inlines ${JSON.stringify(CONTENTS).length} bytes: {"CmsPlugins":["ActiveDirectory"],"ActiveDirectoryConfig":{"HostAccountConfig":{"PluginInput":"(hidden)"}}}`,
    );
    expect(io.out).toContain("Dry run as admin: admitted (201)\n  warning: gmsa: pod inlined\n");
    expect(io.out + io.err).not.toContain("do-not-print");
    expect(io.out + io.err).not.toContain("secret-admin-token");
  });

  /** The users and groups of the access reviews the API server got since the `before`th request. */
  const reviewedSince = (before: number) =>
    server.requests
      .slice(before)
      .filter((r) => r.path.endsWith("/localsubjectaccessreviews"))
      .map((r) => (JSON.parse(r.body) as { spec: { user: string; groups: string[] } }).spec);

  it.each([
    [
      "a user with --as-group and system:authenticated",
      ["--as", "jane", "--as-group", "devs"],
      ["devs", "system:authenticated"],
    ],
    [
      "a service account with its groups",
      ["--as", "system:serviceaccount:web:b"],
      ["system:serviceaccounts", "system:serviceaccounts:web", "system:authenticated"],
    ],
    [
      "a service account with --as-group instead",
      ["--as", "system:serviceaccount:web:b", "--as-group", "g"],
      ["g", "system:authenticated"],
    ],
    ["system:anonymous as unauthenticated", ["--as", "system:anonymous"], ["system:unauthenticated"]],
    [
      "system:authenticated given once",
      ["--as", "jane", "--as-group", "system:authenticated"],
      ["system:authenticated"],
    ],
  ])("asks about --as %s, the groups the API server gives it", async (_, flags, groups) => {
    const io = fakeIo({ env, stdin: JSON.stringify(POD) });
    const before = server.requests.length;
    await runExplainCommand(["-f", "-", ...flags], io);
    expect(reviewedSince(before)).toContainEqual(expect.objectContaining({ user: flags[1], groups }));
  });

  const inWeb = JSON.stringify({ ...POD, metadata: { name: "p", namespace: "web" } });
  it.each([
    [["-f", "missing.yaml"], inWeb, /^gmsa-webhooks explain: missing\.yaml: cannot be read \(ENOENT\)\n$/],
    [
      ["-f", "pod.yaml", "-n", "other"],
      inWeb,
      /^gmsa-webhooks explain: pod\.yaml: the Pod's namespace "web" does not match -n "other"\n$/,
    ],
    [
      ["-f", "pod.yaml"],
      "kind: Pod\nmetadata: {name: p}\n---\nkind: Pod\n",
      /: expected one Pod, found 2 documents\n$/,
    ],
    [["-f", "pod.yaml"], "kind: Deployment\n", /: expected kind Pod, got "Deployment" \(explain reads Pods\)\n$/],
    [["-f", "pod.yaml"], "kind: Pod\nspec: {containers: [{}]}\n", /: not a valid Pod: spec\.containers\.0\.name: /],
    [["-f", "pod.yaml"], "kind: Pod\n  bad: [", /: not YAML: /],
  ])("exits 2 for %j with pod.yaml %j", async (argv, text, message) => {
    const io = fakeIo({ env, files: { "pod.yaml": text } });
    expect(await runExplainCommand(argv, io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(message);
  });

  it("reads a Pod in YAML; one naming no credspec is left as it is (0)", async () => {
    const io = fakeIo({ env, files: { "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" } });
    expect(await runExplainCommand(["-f", "pod.yaml"], io)).toBe(EXIT_OK);
    expect(io.out).toMatch(
      /^Pod web\/p, service account web\/default\n {2}names no GMSACredentialSpec: the webhooks leave it as it is\nDry run as admin: admitted/,
    );
  });

  it("says what it could not learn, each place, and the verdict", async () => {
    whoAmI = { status: 403, body: { kind: "Status", reason: "Forbidden", message: "forbidden" } };
    dryRun = { status: 201, body: { kind: "Pod" } };
    const init = { name: "init", securityContext: { windowsOptions: { gmsaCredentialSpec: "{}" } } };
    const spec = {
      ...POD.spec,
      securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp09" } },
      initContainers: [init],
    };
    const io = fakeIo({ env, stdin: JSON.stringify({ ...POD, spec }) });
    expect(await runExplainCommand(["-f", "-"], io)).toBe(EXIT_OK);
    const unknown = "SelfSubjectReview: the API server answered 403 Forbidden: forbidden";
    expect(io.out).toBe(
      [
        "Pod web/p, service account web/a",
        `  who you are is unknown (${unknown})`,
        '  GMSACredentialSpec "webapp09" (pod)',
        "    service account web/a may use it: yes  (RBAC: allowed)",
        `    you may use it: unknown: ${unknown}`,
        '    expand inlines: nothing: GMSACredentialSpec "webapp09" does not exist',
        '  init container "init": credential spec contents without a name',
        "Dry run as you: admitted (201)",
        "",
      ].join("\n"),
    );
  });
});
