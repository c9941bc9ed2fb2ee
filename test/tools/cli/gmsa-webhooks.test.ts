import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import { runChild, runCli, type Run } from "../../support/run-child.ts";
import { tempDir } from "../../support/temp-dir.ts";
import {
  PLUGIN_INPUT_MARKER,
  loadCredSpecFixture,
  parseYamlDocuments,
  readCredSpecFixtureBytes,
} from "../../support/credspec-fixtures.ts";

const BIN = "cli/gmsa-webhooks.ts";
const FIXTURES = "test/support/fixtures/credspec";
const OLD_NODE = existsSync("/usr/bin/node") ? "/usr/bin/node" : undefined;
const NON_DOMAIN_JOINED = `${FIXTURES}/webapp1-non-domain-joined.json`;

const runBin = (args: string[], stdin?: Uint8Array) => runCli(args, { stdin });

function kinds(objects: unknown[]): string[] {
  return objects.map((object) => (object as { kind: string }).kind);
}

describe("gmsa-webhooks credspec (the bin)", () => {
  it("reads a file, or stdin for -, and prints the GMSACredentialSpec and its ClusterRole as YAML (exit 0)", async () => {
    const run = await runBin(["credspec", NON_DOMAIN_JOINED]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const objects = parseYamlDocuments(run.stdout);
    expect(kinds(objects)).toEqual(["GMSACredentialSpec", "ClusterRole"]);
    expect(objects[0]).toEqual({
      apiVersion: "windows.k8s.io/v1",
      kind: "GMSACredentialSpec",
      metadata: { name: "webapp1" },
      credspec: loadCredSpecFixture("webapp1-non-domain-joined.json"),
    });
    expect(await runBin(["credspec", "-"], readCredSpecFixtureBytes("webapp1-non-domain-joined.json"))).toEqual(run);
  });

  it("adds a RoleBinding for each --service-account, and takes --name and --output json", async () => {
    const args = ["credspec", "--name", "contoso-webapp1", "--service-account", "web:frontend", NON_DOMAIN_JOINED];
    const run = await runBin([...args, "--service-account", "batch:reports", "-o", "json"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const list = JSON.parse(run.stdout) as { kind: string; items: { kind: string; metadata: object }[] };
    expect(list.kind).toBe("List");
    expect(list.items.map((item) => [item.kind, item.metadata])).toEqual([
      ["GMSACredentialSpec", { name: "contoso-webapp1" }],
      ["ClusterRole", { name: "contoso-webapp1-use" }],
      ["RoleBinding", { name: "contoso-webapp1-use-frontend", namespace: "web" }],
      ["RoleBinding", { name: "contoso-webapp1-use-reports", namespace: "batch" }],
    ]);
  });

  it("exits 1 and names every problem by JSON path on stderr, or input that is not JSON, never PluginInput's value", async () => {
    const doc = loadCredSpecFixture("webapp1-non-domain-joined.json") as {
      CmsPlugins?: unknown;
      ActiveDirectoryConfig: { HostAccountConfig: Record<string, unknown> };
    };
    delete doc.CmsPlugins;
    delete doc.ActiveDirectoryConfig.HostAccountConfig.PluginGUID;
    doc.ActiveDirectoryConfig.HostAccountConfig.PluginInput = { ref: PLUGIN_INPUT_MARKER };
    const run = await runBin(["credspec", "-"], new TextEncoder().encode(JSON.stringify(doc)));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("stdin: invalid credential spec, 3 problems");
    expect(run.stderr).toContain("  CmsPlugins: is required");
    expect(run.stderr).toContain("  ActiveDirectoryConfig.HostAccountConfig.PluginGUID: is required");
    expect(run.stderr).toContain(
      "  ActiveDirectoryConfig.HostAccountConfig.PluginInput: must be a string, got an object",
    );
    expect(run.stderr).not.toContain(PLUGIN_INPUT_MARKER);
    const notJson = await runBin(
      ["credspec", "-"],
      new TextEncoder().encode(`{"PluginInput": "${PLUGIN_INPUT_MARKER}" x}`),
    );
    expect(notJson).toMatchObject({ code: 1, stdout: "" });
    expect(notJson.stderr).toMatch(/not valid JSON \(line 1 column \d+\)/);
    expect(notJson.stderr).not.toContain(PLUGIN_INPUT_MARKER);
  });

  it.each([
    ["no input", ["credspec"], /missing input/],
    ["an unknown option", ["credspec", "--nmae", "x", NON_DOMAIN_JOINED], /Unknown option '--nmae'/],
    ["a missing file", ["credspec", `${FIXTURES}/missing.json`], /missing\.json: cannot be read \(ENOENT\)/],
    ["an unknown command", ["credspecs"], /unknown command "credspecs"/],
  ])("exits 2 on a usage error: %s", async (_, args, message) => {
    const run = await runBin(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
  });

  it("prints help on stdout (exit 0) without credential spec values", async () => {
    const run = await runBin(["credspec", "--help", NON_DOMAIN_JOINED]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^Usage: gmsa-webhooks credspec \[options\] <file \| ->/);
    expect(run.stdout).toContain("--service-account <ns:name>");
    expect(run.stdout).not.toContain(PLUGIN_INPUT_MARKER);
    expect((await runBin(["--help"])).stdout).toMatch(/^Usage: gmsa-webhooks <command>/);
  });

  it("is the package.json bin, with a node shebang", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ "gmsa-webhooks": BIN, "kubectl-gmsa": BIN });
    expect(readFileSync(path.join(REPO_ROOT, BIN), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});

describe("kubectl-gmsa (the documented link to cli/entry.mjs, as kubectl runs a plugin)", () => {
  async function runAsPlugin(args: string[], node = process.execPath): Promise<Run> {
    // kubectl runs the kubectl-gmsa it finds on PATH by that name; a symlink keeps the name, as npm's bin links do.
    const dir = await tempDir();
    await symlink(path.join(REPO_ROOT, "cli/entry.mjs"), path.join(dir, "kubectl-gmsa"));
    return runChild(node, [path.join(dir, "kubectl-gmsa"), ...args]);
  }

  it("names itself `kubectl gmsa` in help and errors", async () => {
    expect((await runAsPlugin(["--help"])).stdout).toMatch(
      /^Usage: kubectl gmsa <command>[^]*Run 'kubectl gmsa <command> --help'/,
    );
    const wrong = await runAsPlugin(["credspec", "--nmae", "x"]);
    expect(wrong).toMatchObject({ code: 2, stdout: "" });
    expect(wrong.stderr).toMatch(
      /^kubectl gmsa credspec: Unknown option '--nmae'[^]*Run 'kubectl gmsa credspec --help' for usage\./,
    );
  });

  it("takes cluster flags before the command, as `kubectl gmsa --context c <command>`", async () => {
    const run = await runAsPlugin(["-o", "json", "nope"]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(/^kubectl gmsa: unknown command "nope"/);
  });

  // The machines this project runs on ship an older system Node (Debian's), the one a link run outside npm finds.
  const oldNode =
    OLD_NODE !== undefined &&
    Number(/^v(\d+)/.exec(execFileSync(OLD_NODE, ["--version"], { encoding: "utf8" }))?.[1]) < 24;
  it.skipIf(!oldNode)("on a Node older than 24 says so in one line and exits 1, with no stack trace", async () => {
    const run = await runAsPlugin(["--help"], OLD_NODE);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(
      /^kubectl-gmsa: needs Node 24 or later, found v\d+\.\d+\.\d+ at \S+; put the project's Node first on PATH .*\n$/,
    );
  });
});
