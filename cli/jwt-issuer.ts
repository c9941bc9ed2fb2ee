/**
 * `gmsa-webhooks jwt-issuer` (`npm run jwt-issuer`), the issuer side of the Workers' JWT token source: writes the
 * OpenID discovery document and the JWKS that the cluster's JWT authenticator fetches, into a folder to publish on any
 * static HTTPS host at JWT_ISSUER, and prints the matching AuthenticationConfiguration entry. The private key never
 * leaves your machine and the Worker secret.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { buildJwks, buildOpenIdDiscovery, resolveJwtAlg, type JwtKeyOptions } from "../shared/credentials/jwt.ts";
import { command, EXIT_INVALID, EXIT_OK, readInput } from "./io.ts";

/** Options of {@link writeJwtIssuerFiles}. */
export interface JwtIssuerOptions extends JwtKeyOptions {
  /** JWT_ISSUER: the https URL the files are published under. */
  issuer: string;
  outDir: string;
}

/** The two files, at the paths kube-apiserver's own issuer uses. @returns their paths relative to `outDir`. */
export async function writeJwtIssuerFiles(options: JwtIssuerOptions): Promise<string[]> {
  const alg = resolveJwtAlg(options);
  const files: Record<string, unknown> = {
    ".well-known/openid-configuration": buildOpenIdDiscovery({ issuer: options.issuer, alg }),
    "openid/v1/jwks": await buildJwks(options),
  };
  for (const [file, body] of Object.entries(files)) {
    const target = path.join(options.outDir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, `${JSON.stringify(body, null, 2)}\n`);
  }
  return Object.keys(files);
}

/** The `jwt[]` entry of the API server's AuthenticationConfiguration that trusts these tokens. */
export function buildAuthenticatorEntry(options: { issuer: string; audience: string; subject: string }): string {
  return [
    "- issuer:",
    `    url: ${options.issuer}`,
    `    audiences: [${options.audience}]`,
    "  claimMappings:",
    "    username:",
    "      claim: sub",
    '      prefix: "gmsa-webhooks:"',
    `  # RBAC subject: User "gmsa-webhooks:${options.subject}"`,
  ].join("\n");
}

const TEXT = { type: "string" } as const;
const OPTIONS = { key: TEXT, alg: TEXT, "key-id": TEXT, issuer: TEXT, audience: TEXT, subject: TEXT, out: TEXT };
const REQUIRED = ["key", "issuer", "audience", "subject", "out"] as const;

/** `gmsa-webhooks jwt-issuer`: resolves to the exit status. Only public keys are written or printed. */
export const runJwtIssuerCommand = command({
  name: "jwt-issuer",
  options: OPTIONS,
  usage: `Usage: gmsa-webhooks jwt-issuer --key <pem> --issuer <url> --audience <aud> --subject <sub> --out <dir> [options]

Writes the discovery document (.well-known/openid-configuration) and the public JWKS
(openid/v1/jwks) of a Worker's JWT signing key into <dir>, to publish under JWT_ISSUER on
any static HTTPS host, and prints the API server's AuthenticationConfiguration jwt[] entry
(docs/install-cloudflare-workers.md). The private key is read, never written or printed.

Options:
  --key <pem>           the Worker's private key (PKCS#8 PEM; JWT_PRIVATE_KEY), required
  --issuer <url>        JWT_ISSUER: the https URL the files are published under, required
  --audience <aud>      JWT_AUDIENCE: an audience the API server accepts, required
  --subject <sub>       JWT_SUBJECT: the token's sub, for the RBAC subject, required
  --out <dir>           the folder to write into (created when missing), required
  --alg <alg>           JWT_ALG (default: from the key)
  --key-id <kid>        JWT_KEY_ID (default: the key's JWK thumbprint)
  -h, --help            show this help

Exit status: 0 written, 1 the key cannot be read or used, 2 usage error.

Example: npm run jwt-issuer -- --key worker-key.pem --alg RS256 --issuer https://gmsa-issuer.example.com \\
  --audience https://kubernetes.example.com --subject gmsa-webhooks-expand --out ./issuer-site
`,
  check: ({ values, positionals }) => [
    ...REQUIRED.filter((name) => values[name] === undefined).map((name) => `--${name} is required`),
    ...Object.entries(values)
      .filter(([, value]) => value === "")
      .map(([name]) => `--${name} is empty`),
    ...(positionals.length === 0 ? [] : [`unexpected argument ${JSON.stringify(positionals[0])}`]),
  ],
  async run({ values }, io) {
    const { key = "", issuer = "", audience = "", subject = "", out = "" } = values;
    const pem = await readInput(io, "jwt-issuer", key);
    if (pem === undefined) return EXIT_INVALID;
    try {
      const written = await writeJwtIssuerFiles({
        privateKey: new TextDecoder().decode(pem),
        issuer,
        outDir: out,
        ...(values.alg === undefined ? {} : { alg: values.alg }),
        ...(values["key-id"] === undefined ? {} : { keyId: values["key-id"] }),
      });
      io.stdout(`wrote ${written.map((file) => path.join(out, file)).join(" and ")}; publish them under ${issuer}\n\n`);
      io.stdout(
        `AuthenticationConfiguration jwt[] entry:\n${buildAuthenticatorEntry({ issuer, audience, subject })}\n`,
      );
      return EXIT_OK;
    } catch (error) {
      // jose's and the file system's messages name the problem (an unsupported key, an unwritable folder), not the key.
      io.stderr(`${io.program} jwt-issuer: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_INVALID;
    }
  },
});
