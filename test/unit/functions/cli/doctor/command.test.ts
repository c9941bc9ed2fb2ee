import { describe, expect, it } from "vitest";
import { runDoctorCommand } from "../../../../../functions/cli/doctor/command.ts";
import { EXIT_OK, EXIT_USAGE } from "../../../../../functions/cli/io.ts";
import { fakeIo } from "../fake-io.ts";

describe("kubectl gmsa doctor's command line", () => {
  it("prints its usage with --help, naming the program as invoked (exit 0)", async () => {
    const io = fakeIo({ program: "kubectl gmsa" });
    expect(await runDoctorCommand(["--help"], io)).toBe(EXIT_OK);
    expect(io.out).toMatch(/^Usage: kubectl gmsa doctor \[options\]/);
    expect(io.out).toMatch(/--service-account <ns:name>/);
  });

  it.each([
    [["--service-account", "web"], /--service-account "web" is not <namespace>:<name>/],
    [["--credspec", "Not_A_Name"], /--credspec "Not_A_Name" is not a DNS-1123 subdomain/],
    [["--expand-identity", ""], /--expand-identity must not be empty/],
    [["extra"], /unexpected argument "extra"/],
    [["-o", "table"], /-o\/--output must be json or yaml/],
  ])("refuses %j before connecting (exit 2)", async (argv, message) => {
    const io = fakeIo();
    expect(await runDoctorCommand(argv, io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(message);
    expect(io.err).toMatch(/Run 'gmsa-webhooks doctor --help' for usage/);
  });
});
