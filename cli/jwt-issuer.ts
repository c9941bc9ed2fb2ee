/**
 * The issuer side of the Workers' JWT token source: writes the OpenID discovery document and the JWKS that the
 * cluster's JWT authenticator fetches, into a folder to publish on any static HTTPS host at JWT_ISSUER, and prints
 * the matching AuthenticationConfiguration entry. The private key never leaves your machine and the Worker secret.
 *
 *   npm run jwt-issuer -- --key worker-key.pem --alg RS256 --issuer https://gmsa-issuer.example.com \
 *     --audience https://kubernetes.example.com --subject gmsa-webhooks-expand --out ./issuer-site
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildJwks, buildOpenIdDiscovery, resolveJwtAlg, type JwtKeyOptions } from "../shared/credentials/jwt.ts";

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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      key: { type: "string" },
      alg: { type: "string" },
      "key-id": { type: "string" },
      issuer: { type: "string" },
      audience: { type: "string" },
      subject: { type: "string" },
      out: { type: "string" },
    },
  });
  const { key, issuer, audience, subject, out } = values;
  if (
    key === undefined ||
    issuer === undefined ||
    audience === undefined ||
    subject === undefined ||
    out === undefined
  ) {
    console.error(
      "usage: npm run jwt-issuer -- --key KEY.pem --issuer URL --audience AUD --subject SUB --out DIR [--alg ALG] [--key-id KID]",
    );
    process.exitCode = 2;
    return;
  }
  const privateKey = await readFile(key, "utf8");
  const written = await writeJwtIssuerFiles({
    privateKey,
    issuer,
    outDir: out,
    ...(values.alg === undefined ? {} : { alg: values.alg }),
    ...(values["key-id"] === undefined ? {} : { keyId: values["key-id"] }),
  });
  console.log(`wrote ${written.map((file) => path.join(out, file)).join(" and ")}; publish them under ${issuer}\n`);
  console.log("AuthenticationConfiguration jwt[] entry:\n" + buildAuthenticatorEntry({ issuer, audience, subject }));
}

if (import.meta.main) await main();
