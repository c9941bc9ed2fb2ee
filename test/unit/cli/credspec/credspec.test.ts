import { describe, expect, it } from "vitest";
import { runCredSpecCommand } from "../../../../cli/credspec/credspec.ts";
import { EXIT_INVALID, EXIT_OK, EXIT_USAGE, type CliIo } from "../../../../cli/io.ts";
import { loadCredSpecFixture, PLUGIN_INPUT_MARKER, parseYamlDocuments } from "../../../support/credspec-fixtures.ts";

const FILE = "webapp1.json";

/** An in-memory CliIo: `files` by path, optional stdin, captured output. */
function fakeIo(files: Record<string, unknown>, stdin?: string): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (text: string) => void (io.out += text),
    stderr: (text: string) => void (io.err += text),
    read: (path: string) => {
      if (path === "-") return Promise.resolve(new TextEncoder().encode(stdin ?? ""));
      if (!(path in files)) return Promise.reject(Object.assign(new Error(`EACCES: ${path}`), { code: "EACCES" }));
      return Promise.resolve(new TextEncoder().encode(JSON.stringify(files[path])));
    },
    env: {},
    program: "gmsa-webhooks",
  };
  return io;
}

describe("runCredSpecCommand", () => {
  it("prints the resources for a valid file (0)", async () => {
    const io = fakeIo({ [FILE]: loadCredSpecFixture("webapp1.json") });
    expect(await runCredSpecCommand([FILE], io)).toBe(EXIT_OK);
    expect(parseYamlDocuments(io.out).map((o) => (o as { metadata: unknown }).metadata)).toEqual([
      { name: "webapp1" },
      { name: "webapp1-use" },
    ]);
    expect(io.err).toBe("");
  });

  it("prints unknown-field warnings on stderr and still succeeds (0)", async () => {
    const doc = { ...loadCredSpecFixture("webapp1.json"), Comment: PLUGIN_INPUT_MARKER };
    const io = fakeIo({ [FILE]: doc });
    expect(await runCredSpecCommand([FILE], io)).toBe(EXIT_OK);
    expect(io.err).toMatch(
      /^gmsa-webhooks credspec: webapp1\.json: warning: Comment: is not in the GMSACredentialSpec schema/,
    );
    expect(io.err).not.toContain(PLUGIN_INPUT_MARKER);
  });

  it("asks for --name when the account name leaves no valid resource name (1)", async () => {
    const doc = loadCredSpecFixture("webapp1.json") as {
      ActiveDirectoryConfig: { GroupManagedServiceAccounts: { Name: string }[] };
    };
    for (const account of doc.ActiveDirectoryConfig.GroupManagedServiceAccounts) account.Name = "___";
    const io = fakeIo({ [FILE]: doc });
    expect(await runCredSpecCommand([FILE], io)).toBe(EXIT_INVALID);
    expect(io.err).toContain(
      "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Name: leaves no valid resource name",
    );
    expect(io.err).toContain("pass --name");
    expect(await runCredSpecCommand(["--name", "webapp1", FILE], io)).toBe(EXIT_OK);
  });

  it("reports an unreadable file by its error code (2)", async () => {
    const io = fakeIo({});
    expect(await runCredSpecCommand(["secret.json"], io)).toBe(EXIT_USAGE);
    expect(io.err).toBe("gmsa-webhooks credspec: secret.json: cannot be read (EACCES)\n");
  });

  it("reports every usage problem together (2)", async () => {
    const io = fakeIo({});
    const args = [
      "--name",
      "Web_App",
      "--role-name",
      "a/b",
      "--service-account",
      "x",
      "-o",
      "toml",
      "a.json",
      "b.json",
    ];
    expect(await runCredSpecCommand(args, io)).toBe(EXIT_USAGE);
    expect(io.err.split("\n").filter((line) => line !== "")).toEqual([
      "gmsa-webhooks credspec: expected one input file",
      "gmsa-webhooks credspec: --name \"Web_App\" is not a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')",
      'gmsa-webhooks credspec: --role-name "a/b" is not a valid object name',
      'gmsa-webhooks credspec: --service-account "x" is not namespace:name',
      "gmsa-webhooks credspec: --output must be one of yaml, json",
      "Run 'gmsa-webhooks credspec --help' for usage.",
    ]);
  });
});
