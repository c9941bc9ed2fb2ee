#!/usr/bin/env node
/**
 * The `gmsa-webhooks` command, and `kubectl gmsa` as kubectl-gmsa (package.json `bin`). TypeScript with a node
 * shebang: Node 24 (first on PATH under npx and npm scripts) strips the types, an older `node` fails with
 * ERR_UNKNOWN_FILE_EXTENSION, and only outside node_modules: this bin serves a checkout, not an installed package.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import { parseArgs } from "node:util";
import { runCredSpecCommand } from "./credspec/credspec.ts";
import { CLUSTER_OPTIONS, EXIT_OK, EXIT_USAGE, usageFor, type CliIo } from "./io.ts";
import { runTokenCommand } from "./token.ts";

const MAIN_USAGE = `Usage: gmsa-webhooks <command> [options]

Commands:
  credspec      turn New-CredentialSpec JSON into a GMSACredentialSpec and the RBAC to use it
  token         print an ExecCredential with an EKS, AKS or GKE token (a kubeconfig exec plugin)

Cluster commands (read-only: GETs, access reviews and dry runs; docs/kubectl-gmsa.md):
  doctor        check that an install works: one line per check, what is wrong, how to fix it
  who-can-use   the service accounts that may use a GMSACredentialSpec
  explain       what the webhooks would do with a pod, and why

Key and token commands (files on this machine, no cluster):
  jwt-issuer    publish a Worker's JWT issuer: discovery document, JWKS, authenticator entry
  caller-token  the caller JWT for CALLER_AUTH=jwt: make a key, print its JWKS, mint a token

Run 'gmsa-webhooks <command> --help' for a command's options.
Installed as kubectl-gmsa on PATH, this is 'kubectl gmsa'.
`;

/**
 * Every command by name: each declares its arguments with io.ts's `command` and resolves to its exit status. The
 * cluster and key commands load the kube client or jose when run, so that `token`, which kubectl runs at every
 * credential refresh, starts quickly.
 */
const COMMANDS: Record<string, (argv: readonly string[], io: CliIo) => Promise<number>> = {
  credspec: runCredSpecCommand,
  doctor: async (argv, io) => (await import("./doctor/doctor.ts")).runDoctorCommand(argv, io),
  token: runTokenCommand,
  "who-can-use": async (argv, io) => (await import("./who-can-use.ts")).runWhoCanUseCommand(argv, io),
  explain: async (argv, io) => (await import("./explain.ts")).runExplainCommand(argv, io),
  "jwt-issuer": async (argv, io) => (await import("./jwt-issuer.ts")).runJwtIssuerCommand(argv, io),
  "caller-token": async (argv, io) => (await import("./caller-token/caller-token.ts")).runCallerTokenCommand(argv, io),
};

/** Dispatches `gmsa-webhooks <command> ...`; cluster flags may come first (`kubectl gmsa --context c explain ...`). */
async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { tokens } = parseArgs({
    args: [...argv],
    options: CLUSTER_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const first = tokens.find((token) => token.kind === "positional" || token.kind === "option-terminator");
  const [command, rest] =
    first?.kind === "positional"
      ? [first.value, argv.filter((_, index) => index !== first.index)]
      : [argv[0], argv.slice(1)];
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run !== undefined) return run(rest, io);
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(usageFor(MAIN_USAGE, io));
    return EXIT_OK;
  }
  const problem = command === undefined ? "" : `${io.program}: unknown command ${JSON.stringify(command)}\n`;
  io.stderr(`${problem}${usageFor(MAIN_USAGE, io)}`);
  return EXIT_USAGE;
}

const io: CliIo = {
  // `kubectl gmsa` when run as kubectl's plugin (kubectl-gmsa, or the krew archive's kubectl-gmsa).
  program: path.basename(process.argv[1] ?? "").startsWith("kubectl-gmsa") ? "kubectl gmsa" : "gmsa-webhooks",
  stdoutIsTty: process.stdout.isTTY,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  read: async (file) => new Uint8Array(file === "-" ? await buffer(process.stdin) : await readFile(file)),
  env: process.env,
};
process.exitCode = await runCli(process.argv.slice(2), io);
