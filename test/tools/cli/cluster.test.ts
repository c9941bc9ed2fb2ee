import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterCommand, printResult, type ClusterArgs, type ClusterConnection } from "../../../cli/cluster.ts";
import { EXIT_INVALID, EXIT_OK, EXIT_USAGE } from "../../../cli/io.ts";
import { startKubeServer, type KubeServer } from "../../support/kube-server.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../support/test-pki.ts";
import { fakeIo, type FakeIo } from "../../support/fake-io.ts";

const ALL_NAMESPACES = { "all-namespaces": { type: "boolean", short: "A" } } as const;

/** Runs a cluster command that only hands back what it was given (and, connected, `work`'s result). */
async function probe<T>(argv: string[], io: FakeIo, work?: (connection: ClusterConnection) => Promise<T>) {
  let seen: { args: ClusterArgs<typeof ALL_NAMESPACES>; result: T | undefined } | undefined;
  const run = async (args: ClusterArgs<typeof ALL_NAMESPACES>, connection: ClusterConnection) => {
    seen = { args, result: await work?.(connection) };
    return EXIT_OK;
  };
  const code = await clusterCommand({
    name: "probe",
    options: ALL_NAMESPACES,
    usage: "Usage: gmsa-webhooks probe\n",
    run,
  })(argv, io);
  return { code, ...seen };
}

describe("the cluster flags", () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    const dir = await tempDir();
    await writeFile(
      path.join(dir, "config"),
      JSON.stringify({
        "current-context": "c",
        clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
        users: [{ name: "u", user: { token: "t" } }],
        contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      }),
    );
    env = { KUBECONFIG: path.join(dir, "config"), HOME: dir };
  });

  it("reads kubectl's flags, short and long, with -o text by default, and the command's own options beside them", async () => {
    const argv = [
      "--kubeconfig",
      env.KUBECONFIG ?? "",
      ..."--context c -n web --as jane --as-group a --as-group b -A x".split(" "),
    ];
    const { code, args } = await probe(argv, fakeIo({ env }));
    expect(code).toBe(EXIT_OK);
    expect(args && [args.flags, args.values["all-namespaces"], args.positionals]).toEqual([
      { kubeconfig: env.KUBECONFIG, context: "c", namespace: "web", as: "jane", asGroups: ["a", "b"], output: "text" },
      true,
      ["x"],
    ]);
    expect((await probe(["-o", "yaml"], fakeIo({ env }))).args?.flags.output).toBe("yaml");
  });

  it.each([
    [["-o", "wide"], '-o/--output must be json or yaml, got "wide"'],
    [["--as-group", "g"], "--as-group needs --as (the user to impersonate)"],
    [["--as", ""], "--as must not be empty"],
    [["--bogus"], "Unknown option '--bogus'"],
  ])("refuses %j: %s (2)", async (argv, error) => {
    const io = fakeIo({ env });
    expect((await probe(argv, io)).code).toBe(EXIT_USAGE);
    expect(io.err).toContain(`gmsa-webhooks probe: ${error}`);
  });
});

describe("printResult", () => {
  it("colours only on a terminal with NO_COLOR unset", () => {
    const printed = (io: FakeIo) => {
      printResult(io, "text", {}, (paint) => paint.bad("x"));
      return io.out;
    };
    expect(printed(fakeIo({ tty: true }))).toBe("\u001b[31mx\u001b[0m");
    expect(printed(fakeIo({ tty: false }))).toBe("x");
    expect(printed(fakeIo({ tty: true, env: { NO_COLOR: "1" } }))).toBe("x");
  });
});

describe("the connection", () => {
  let pki: TestPki;
  let server: KubeServer;
  let dir: string;

  beforeAll(async () => {
    pki = await createTestPki();
    server = await startKubeServer({
      ...pki.server,
      script: () => ({
        status: 201,
        body: { kind: "Pod" },
        headers: { Warning: '299 - "first, with a comma", 299 - "say \\"hi\\""' },
      }),
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

  /** The namespace a command is given, and the path its request reaches the test server with. */
  async function connected(argv: string[]) {
    const { result } = await probe(argv, fakeIo({ env: env() }), async (connection) => {
      await connection.request({ method: "GET", path: "/api" });
      return { namespace: connection.namespace, path: server.requests.at(-1)?.path };
    });
    return result;
  }

  // A KUBECONFIG list merges with the first file's current-context and namespace; "b" stands for that second file.
  it.each([
    [[], "web", "/api"],
    [["--context", "second"], "default", "/k8s/clusters/c-secret/api"],
    [["-n", "batch"], "batch", "/api"],
    [["--kubeconfig", "b"], "default", "/k8s/clusters/c-secret/api"],
  ])("%j connects in namespace %s, reaching %s", async (argv, namespace, reached) => {
    const args = argv.map((arg) => (arg === "b" ? path.join(dir, "b") : arg));
    expect(await connected(args)).toEqual({ namespace, path: reached });
  });

  it("impersonates --as and each --as-group on its own header line, except for asCaller, and returns each warning", async () => {
    const { result: answer } = await probe(
      ["--as", "jane", "--as-group", "devs", "--as-group", "ops"],
      fakeIo({ env: env() }),
      async (connection) => {
        const dryRun = await connection.request({
          method: "POST",
          path: "/api/v1/namespaces/web/pods",
          query: { dryRun: "All" },
          body: { kind: "Pod" },
        });
        await connection.request({ method: "GET", path: "/api", asCaller: true });
        return dryRun;
      },
    );
    expect(answer).toEqual({ status: 201, body: { kind: "Pod" }, warnings: ["first, with a comma", 'say "hi"'] });
    const [person, caller] = server.requests.slice(-2);
    expect(person?.path).toBe("/api/v1/namespaces/web/pods?dryRun=All");
    expect(person?.headers).toMatchObject({ "impersonate-user": "jane", authorization: "Bearer secret-token-a" });
    // One line per group (the API server reads each line as one group); Node joins them with ", " for the record.
    expect(person?.rawHeaders.filter((_, index, raw) => raw[index - 1] === "Impersonate-Group")).toEqual([
      "devs",
      "ops",
    ]);
    expect(caller?.headers["impersonate-user"]).toBeUndefined();
  });

  it("a cluster command prints every kubeconfig problem and exits 1, without the token", async () => {
    const io = fakeIo({ env: env(), program: "kubectl gmsa" });
    expect((await probe(["--context", "nope"], io)).code).toBe(EXIT_INVALID);
    expect(io.err).toBe('kubectl gmsa probe: kubeconfig: context "nope" is not defined\n');
  });
});

describe("clusterCommand", () => {
  const command = {
    name: "probe",
    options: {},
    usage: "Usage: gmsa-webhooks probe\n",
    check: ({ positionals }: { positionals: string[] }) => (positionals.length === 1 ? [] : ["probe takes one NAME"]),
    run: () => Promise.resolve(EXIT_OK),
  };

  it("answers --help on stdout with the program as invoked (0)", async () => {
    const io = fakeIo({ program: "kubectl gmsa" });
    expect(await clusterCommand(command)(["--help"], io)).toBe(EXIT_OK);
    expect(io.out).toBe("Usage: kubectl gmsa probe\n");
  });

  it.each([[["-o", "xml", "n"]], [[]], [["--nope", "n"]]])(
    "exits 2 for %j, saying why and where to look",
    async (argv) => {
      const io = fakeIo({ program: "kubectl gmsa" });
      expect(await clusterCommand(command)(argv, io)).toBe(EXIT_USAGE);
      expect(io.err).toMatch(/^kubectl gmsa probe: .+\nRun 'kubectl gmsa probe --help' for usage\.\n$/);
    },
  );
});
