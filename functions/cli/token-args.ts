import { parseStrictArgs } from "./strict-args.ts";

/** The clouds `gmsa-webhooks token` speaks for. */
export const TOKEN_PROVIDERS = ["eks", "aks", "gke"] as const;
export type TokenProvider = (typeof TOKEN_PROVIDERS)[number];

/** The `token` command line, checked. Unset options stay undefined; the environment fills them later. */
export type TokenArgs =
  | { help: true }
  | { help: false; provider: "eks"; cluster: string; region: string | undefined }
  | { help: false; provider: "aks"; clientId: string | undefined; serverId: string | undefined }
  | { help: false; provider: "gke" };

/** Parsed arguments, or every usage problem found. */
export type TokenArgsResult = { ok: true; args: TokenArgs } | { ok: false; errors: string[] };

/** Which options each provider takes. */
const PROVIDER_OPTIONS: Record<TokenProvider, readonly string[]> = {
  eks: ["cluster", "region"],
  aks: ["client-id", "server-id"],
  gke: [],
};

/** Parses and checks `token` arguments (after the command word) in strict mode. */
export function parseTokenArgs(argv: readonly string[]): TokenArgsResult {
  const result = parseStrictArgs(argv, {
    cluster: { type: "string" },
    region: { type: "string" },
    "client-id": { type: "string" },
    "server-id": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  });
  if (!result.ok) return result;
  const { values, positionals } = result.parsed;
  if (values.help) return { ok: true, args: { help: true } };
  const errors: string[] = [];
  const provider = TOKEN_PROVIDERS.find((candidate) => candidate === positionals[0]);
  if (positionals.length !== 1 || provider === undefined) {
    errors.push(
      positionals.length === 0
        ? `missing provider: one of ${TOKEN_PROVIDERS.join(", ")}`
        : `expected one provider (${TOKEN_PROVIDERS.join(", ")}), got ${positionals.map((word) => JSON.stringify(word)).join(" ")}`,
    );
    return { ok: false, errors };
  }
  for (const [name, value] of Object.entries(values)) {
    if (name === "help" || value === undefined) continue;
    if (!PROVIDER_OPTIONS[provider].includes(name)) errors.push(`--${name} does not apply to ${provider}`);
    else if (value === "") errors.push(`--${name} is empty`);
  }
  if (provider === "eks" && values.cluster === undefined) errors.push("eks needs --cluster <name>");
  if (errors.length > 0) return { ok: false, errors };
  switch (provider) {
    case "eks":
      return { ok: true, args: { help: false, provider, cluster: values.cluster ?? "", region: values.region } };
    case "aks":
      return { ok: true, args: { help: false, provider, clientId: values["client-id"], serverId: values["server-id"] } };
    case "gke":
      return { ok: true, args: { help: false, provider } };
  }
}
