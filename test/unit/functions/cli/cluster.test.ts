import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectCluster, maskServer, parseClusterArgs, parseWarnings, runClusterCommand, type ClusterFlags } from "../../../../functions/cli/cluster.ts";
import { EXIT_INVALID, EXIT_OK, EXIT_USAGE } from "../../../../functions/cli/io.ts";
import { paintFor } from "../../../../functions/cli/output.ts";
import { startKubeServer, type KubeServer } from "../../../support/kube-server.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../../support/test-pki.ts";
import { fakeIo } from "./fake-io.ts";

const flags = (more: Partial<ClusterFlags> = {}): ClusterFlags => ({ asGroups: [], output: "text", help: false, ...more });

describe("parseClusterArgs", () => {
  it("reads kubectl's flags, short and long, with -o text by default", () => {
    const parsed = parseClusterArgs(["--kubeconfig", "k", "--context", "c", "-n", "web", "--as", "jane", "--as-group", "a", "--as-group", "b", "x"], {});
    expect(parsed.ok && [parsed.args.flags, parsed.args.positionals]).toEqual([
      { kubeconfig: "k", context: "c", namespace: "web", as: "jane", asGroups: ["a", "b"], output: "text", help: false },
      ["x"],
    ]);
  });

  it("takes the command's own options beside the flags", () => {
    const parsed = parseClusterArgs(["-o", "yaml", "-A"], { "all-namespaces": { type: "boolean", short: "A" } });
    expect(parsed.ok && [parsed.args.flags.output, parsed.args.values["all-namespaces"]]).toEqual(["yaml", true]);
  });

  it.each([
    [["-o", "wide"], '-o/--output must be json or yaml, got "wide"'],
    [["--as-group", "g"], "--as-group needs --as (the user to impersonate)"],
    [["--as", ""], "--as must not be empty"],
  ])("refuses %j: %s", (argv, error) => {
    expect(parseClusterArgs(argv, {})).toEqual({ ok: false, errors: [error] });
  });

  it("refuses an unknown flag, naming it", () => {
    const parsed = parseClusterArgs(["--bogus"], {});
    expect(parsed.ok ? [] : parsed.errors).toEqual([expect.stringContaining("'--bogus'")]);
  });
});

describe("maskServer", () => {
  it.each([
    ["https://10.0.0.1:6443", "https://10.0.0.1:6443"],
    ["https://10.0.0.1:6443/", "https://10.0.0.1:6443"],
    ["https://rancher.example/k8s/clusters/c-secret123", "https://rancher.example/k8s/…"],
    ["https://user:pass@host/?token=t", "https://host"],
    ["not a url", "(not a URL)"],
  ])("%s -> %s", (server, shown) => {
    expect(maskServer(server)).toBe(shown);
  });
});

describe("parseWarnings", () => {
  it("reads each warn-text of one or several joined Warning headers, unescaping quotes", () => {
    expect(parseWarnings('299 - "first, with a comma", 299 - "say \\"hi\\""')).toEqual(["first, with a comma", 'say "hi"']);
    expect(parseWarnings(null)).toEqual([]);
  });
});

describe("paintFor", () => {
  it("colours only on a terminal with NO_COLOR unset", () => {
    expect(paintFor(fakeIo({ tty: true })).bad("x")).toBe("\u001b[31mx\u001b[0m");
    expect(paintFor(fakeIo({ tty: false })).bad("x")).toBe("x");
    expect(paintFor(fakeIo({ tty: true, env: { NO_COLOR: "1" } })).bad("x")).toBe("x");
  });
});

describe("connectCluster", () => {
  let pki: TestPki;
  let server: KubeServer;
  let dir: string;

  beforeAll(async () => {
    pki = await createTestPki();
    server = await startKubeServer({
      ...pki.server,
      script: () => ({ status: 201, body: { kind: "Pod" }, headers: { Warning: '299 - "gmsa: inlined"' } }),
    });
    dir = await tempDir();
    await writeFile(path.join(dir, "ca.crt"), pki.caPem);
    const cluster = (server: string) => ({ server, "certificate-authority": "ca.crt" });
    // Two files, merged as kubectl merges them: the first to set a name or current-context wins.
    await writeFile(
      path.join(dir, "a"),
      JSON.stringify({
        "current-context": "first",
        clusters: [{ name: "local", cluster: cluster(`${server.url}/`) }],
        users: [{ name: "admin", user: { token: "secret-token-a" } }],
        contexts: [{ name: "first", context: { cluster: "local", user: "admin", namespace: "web" } }],
      }),
    );
    await writeFile(
      path.join(dir, "b"),
      JSON.stringify({
        "current-context": "second",
        clusters: [{ name: "proxied", cluster: cluster(`${server.url}/k8s/clusters/c-secret`) }],
        users: [{ name: "admin", user: { token: "ignored: a: wins" } }],
        contexts: [{ name: "second", context: { cluster: "proxied", user: "admin" } }],
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await pki.cleanup();
  });

  const env = () => ({ KUBECONFIG: `${path.join(dir, "a")}${path.delimiter}${path.join(dir, "b")}`, HOME: dir });

  it("merges a KUBECONFIG list: current-context and its namespace from the first file", async () => {
    const connection = await connectCluster(flags(), fakeIo({ env: env() }));
    expect([connection.context, connection.namespace, connection.server]).toEqual(["first", "web", server.url]);
    await connection.close();
  });

  it("--context picks another context (namespace default, path secret masked); -n wins over the context's", async () => {
    const second = await connectCluster(flags({ context: "second" }), fakeIo({ env: env() }));
    expect([second.namespace, second.server]).toEqual(["default", `${server.url}/k8s/…`]);
    await second.close();
    const first = await connectCluster(flags({ namespace: "batch" }), fakeIo({ env: env() }));
    expect(first.namespace).toBe("batch");
    await first.close();
  });

  it("--kubeconfig replaces KUBECONFIG", async () => {
    const connection = await connectCluster(flags({ kubeconfig: path.join(dir, "b") }), fakeIo({ env: env() }));
    expect(connection.context).toBe("second");
    await connection.close();
  });

  it("impersonates --as and each --as-group on its own header line, except for asCaller, and returns the warnings", async () => {
    const connection = await connectCluster(flags({ as: "jane", asGroups: ["devs", "ops"] }), fakeIo({ env: env() }));
    const answer = await connection.request({ method: "POST", path: "/api/v1/namespaces/web/pods", query: { dryRun: "All" }, body: { kind: "Pod" } });
    expect(answer).toEqual({ status: 201, body: { kind: "Pod" }, warnings: ["gmsa: inlined"] });
    await connection.request({ method: "GET", path: "/api", asCaller: true });
    await connection.close();
    const [person, caller] = server.requests.slice(-2);
    expect(person?.path).toBe("/api/v1/namespaces/web/pods?dryRun=All");
    expect(person?.headers).toMatchObject({ "impersonate-user": "jane", authorization: "Bearer secret-token-a" });
    // One line per group (the API server reads each line as one group); Node joins them with ", " for the record.
    expect(person?.rawHeaders.filter((_, index, raw) => raw[index - 1] === "Impersonate-Group")).toEqual(["devs", "ops"]);
    expect(caller?.headers["impersonate-user"]).toBeUndefined();
  });

  it("a cluster command prints every kubeconfig problem and exits 1, without the token", async () => {
    const io = fakeIo({ env: env(), program: "kubectl gmsa" });
    const run = () => Promise.resolve(EXIT_OK);
    expect(await runClusterCommand({ name: "probe", options: {}, usage: "Usage: gmsa-webhooks probe\n", run }, ["--context", "nope"], io)).toBe(EXIT_INVALID);
    expect(io.err).toBe('kubectl gmsa probe: kubeconfig: context "nope" is not defined\n');
  });
});

describe("runClusterCommand", () => {
  const command = {
    name: "probe",
    options: {},
    usage: "Usage: gmsa-webhooks probe\n",
    check: ({ positionals }: { positionals: string[] }) => (positionals.length === 1 ? [] : ["probe takes one NAME"]),
    run: () => Promise.resolve(EXIT_OK),
  };

  it("answers --help on stdout with the program as invoked (0)", async () => {
    const io = fakeIo({ program: "kubectl gmsa" });
    expect(await runClusterCommand(command, ["--help"], io)).toBe(EXIT_OK);
    expect(io.out).toBe("Usage: kubectl gmsa probe\n");
  });

  it.each([[["-o", "xml", "n"]], [[]], [["--nope", "n"]]])("exits 2 for %j, saying why and where to look", async (argv) => {
    const io = fakeIo({ program: "kubectl gmsa" });
    expect(await runClusterCommand(command, argv, io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/^kubectl gmsa probe: .+\nRun 'kubectl gmsa probe --help' for usage\.\n$/);
  });
});
