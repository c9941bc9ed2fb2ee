import { describe, expect, it } from "vitest";
import { runCredSpecCommand } from "../../../../cli/credspec/credspec.ts";
import { EXIT_INVALID, EXIT_OK, EXIT_USAGE } from "../../../../cli/io.ts";
import { fakeIo } from "../../../support/fake-io.ts";
import { loadCredSpecFixture, PLUGIN_INPUT_MARKER } from "../../../support/credspec-fixtures.ts";

const FILE = "webapp1.json";

/** A CliIo whose only file, FILE, holds `doc` as JSON. */
const ioWith = (doc: unknown) => fakeIo({ files: { [FILE]: JSON.stringify(doc) } });

describe("runCredSpecCommand", () => {
  it("prints unknown-field warnings on stderr and still succeeds (0)", async () => {
    const doc = { ...loadCredSpecFixture(FILE), Comment: PLUGIN_INPUT_MARKER };
    const io = ioWith(doc);
    expect(await runCredSpecCommand([FILE], io)).toBe(EXIT_OK);
    expect(io.err).toMatch(
      /^gmsa-webhooks credspec: webapp1\.json: warning: Comment: is not in the GMSACredentialSpec schema/,
    );
    expect(io.err).not.toContain(PLUGIN_INPUT_MARKER);
  });

  it("asks for --name when the account name leaves no valid resource name (1)", async () => {
    const doc = loadCredSpecFixture(FILE) as {
      ActiveDirectoryConfig: { GroupManagedServiceAccounts: { Name: string }[] };
    };
    for (const account of doc.ActiveDirectoryConfig.GroupManagedServiceAccounts) account.Name = "___";
    const io = ioWith(doc);
    expect(await runCredSpecCommand([FILE], io)).toBe(EXIT_INVALID);
    expect(io.err).toContain(
      "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Name: leaves no valid resource name",
    );
    expect(io.err).toContain("pass --name");
    expect(await runCredSpecCommand(["--name", "webapp1", FILE], io)).toBe(EXIT_OK);
  });

  it("reports an unreadable file by its error code (2)", async () => {
    const io = fakeIo();
    expect(await runCredSpecCommand(["secret.json"], io)).toBe(EXIT_USAGE);
    expect(io.err).toBe("gmsa-webhooks credspec: secret.json: cannot be read (ENOENT)\n");
  });

  it("reports every usage problem together (2)", async () => {
    const io = fakeIo();
    const args = "--name Web_App --role-name a/b --service-account x -o toml a.json b.json".split(" ");
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
