/** Credentials from a kubeconfig exec plugin (KEP-541) as client-go runs them, output checked; only Node has a {@link RunPlugin}. */
import * as z from "zod/mini";
import "../zod-english.ts";
import { AdmissionError } from "../errors.ts";
import { parseJson } from "../json.ts";
import { createCredentialCache, type CacheSharingOptions } from "./cache.ts";
import { buildPluginEnv, type ExecClusterInfo, type ExecConfig } from "./exec-config.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** How long a plugin may run: past a review's deadline, so a slow first run (SSO, a cold CLI) still serves the next reviews. */
export const EXEC_TIMEOUT_MS = 15_000;

/** How one plugin run ended. `stdout` holds the credential: never log it or put it in an error. */
export type PluginRunResult =
  | { outcome: "exited"; exitCode: number | null; stdout: string; stderr: string }
  | { outcome: "not-found" }
  | { outcome: "timeout"; stderr: string }
  | { outcome: "spawn-error"; message: string };

/**
 * Runs `command` with `args` (no shell), `env` as its whole environment and no stdin; kills it and its children
 * after `timeoutMs` or when `signal` aborts. Resolves for every outcome; rejects only on our own bugs.
 */
export type RunPlugin = (
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
) => Promise<PluginRunResult>;

/** Plugin runs by outcome since start-up. `pluginError` covers non-zero exits, spawn errors and bad output. */
export type ExecRunCounters = Record<"success" | "pluginError" | "notFound" | "timeout", number>;

/** Options of {@link createExecTokenSource}; the cache's pass through (`shareInFlight`: true on Node). */
export interface ExecTokenSourceOptions extends CacheSharingOptions {
  exec: ExecConfig;
  /** The cluster, passed to the plugin when `exec.provideClusterInfo` is true. */
  cluster?: ExecClusterInfo;
  runPlugin: RunPlugin;
  /** The environment the plugin inherits: the process's, without our secrets (the entry removes them). */
  baseEnv: Record<string, string | undefined>;
  /** Kill the plugin after this long. Default {@link EXEC_TIMEOUT_MS}; tests shorten it. */
  timeoutMs?: number;
}

/** The last 400 characters of stderr, on one line, for an error message. */
function tail(stderr: string): string {
  const text = stderr.replace(/\s+/g, " ").trim();
  if (text === "") return "";
  return `: ${text.length > 400 ? `...${text.slice(-400)}` : text}`;
}

const rfc3339 = z.iso.datetime({ offset: true });

/** Parses a plugin's stdout as the ExecCredential `apiVersion` asked for; a problem never repeats what stdout held. */
function parseExecCredential(stdout: string, apiVersion: string): Credential | { problem: string } {
  const json = parseJson(stdout);
  if (json === undefined) return { problem: "stdout is not JSON" };
  const parsed = z
    .object({
      apiVersion: z.literal(apiVersion),
      kind: z.literal("ExecCredential"),
      status: z.object({
        token: z.optional(z.string()),
        clientCertificateData: z.optional(z.string()),
        clientKeyData: z.optional(z.string()),
        expirationTimestamp: z.optional(rfc3339),
      }),
    })
    .safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(top level)"))];
    return {
      problem: `wrong or missing ${fields.join(", ")} (expected apiVersion ${apiVersion}, kind ExecCredential)`,
    };
  }
  const { token, clientCertificateData, clientKeyData, expirationTimestamp } = parsed.data.status;
  const expiry = expirationTimestamp === undefined ? {} : { expirationTimestamp };
  // client-go sends both when a plugin returns both; our one shape prefers the token.
  if (token) return { token, ...expiry };
  if (clientCertificateData && clientKeyData) return { clientCertificateData, clientKeyData, ...expiry };
  if (clientCertificateData || clientKeyData) return { problem: "status has a client certificate without its key" };
  return { problem: "status has neither a token nor a client certificate and key" };
}

/** A {@link TokenSource} that runs the plugin when the cache needs a credential. */
export function createExecTokenSource(options: ExecTokenSourceOptions): TokenSource & { counters(): ExecRunCounters } {
  const { exec, cluster, runPlugin, baseEnv } = options;
  const timeoutMs = options.timeoutMs ?? EXEC_TIMEOUT_MS;
  const describe = `exec plugin "${exec.command}"`;
  const counters: ExecRunCounters = { success: 0, pluginError: 0, notFound: 0, timeout: 0 };

  /** The counter a run counts under, with its credential or what went wrong. */
  function judge(result: PluginRunResult): [keyof ExecRunCounters, Credential | string] {
    switch (result.outcome) {
      case "not-found":
        return [
          "notFound",
          `not found (is it installed and on PATH?)${exec.installHint === undefined ? "" : `\n\n${exec.installHint}`}`,
        ];
      case "timeout":
        return ["timeout", `timed out after ${timeoutMs} ms and was killed${tail(result.stderr)}`];
      case "spawn-error":
        return ["pluginError", `could not be started: ${result.message}`];
      case "exited": {
        if (result.exitCode !== 0)
          return [
            "pluginError",
            `exited with ${result.exitCode === null ? "a signal" : `code ${result.exitCode}`}${tail(result.stderr)}`,
          ];
        const credential = parseExecCredential(result.stdout, exec.apiVersion);
        return "problem" in credential
          ? ["pluginError", `printed an invalid ExecCredential: ${credential.problem}`]
          : ["success", credential];
      }
    }
  }

  async function load(signal: AbortSignal | undefined): Promise<Credential> {
    const [counter, outcome] = judge(
      await runPlugin(exec.command, exec.args, buildPluginEnv(exec, cluster, baseEnv), { timeoutMs, signal }),
    );
    counters[counter]++;
    if (typeof outcome === "string") throw new AdmissionError(`${describe} ${outcome}`, { code: "ERR_CREDENTIALS" });
    return outcome;
  }

  return { ...createCredentialCache({ ...options, load, describe }), counters: () => ({ ...counters }) };
}
