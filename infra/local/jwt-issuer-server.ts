/**
 * The Workers' JWT issuer on loopback: each function's signing key, and the OpenID discovery document and
 * JWKS served over HTTPS (a certificate of the cluster CA) for the API server's JWT authenticator, which
 * {@link buildAuthenticationConfiguration} configures. The files are re-read on every request, like a static
 * host's, so a test in another process can publish other keys ({@link publishJwks}).
 */
import { generateKeyPair } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { buildOpenIdDiscovery, buildPublicJwk } from "../../shared/credentials/jwt.ts";
import { issueServingCertificate, type CertificateAuthority } from "./pki.ts";

const generateKeyPairAsync = promisify(generateKeyPair);

/** The algorithm of the local keys (`JWT_ALG`): P-256 keys are made in milliseconds. */
export const JWT_ALG = "ES256";

/** The username prefix of the authenticator's claim mapping (the same as infra/deploy/overlays/cloudflare-*). */
export const JWT_USERNAME_PREFIX = "gmsa-webhooks:";

/** The group every JWT-authenticated function gets from the claim mapping. */
export const JWT_GROUP = "gmsa-webhooks:functions";

const DISCOVERY_PATH = "/.well-known/openid-configuration";
const JWKS_PATH = "/openid/v1/jwks";

/** Everything about the issuer that survives JSON (part of LocalClusterInfo). */
export interface LocalJwtIssuerInfo {
  /** `JWT_ISSUER` and `issuer.url`: `https://127.0.0.1:<port>`. */
  issuer: string;
  /** `JWT_AUDIENCE` and the authenticator's only audience. */
  audience: string;
  /** Each function's PKCS8 PEM signing key (`JWT_PRIVATE_KEY`), published in the JWKS. */
  keyFiles: Record<FunctionName, string>;
  /** The JWKS file the server reads on every request. */
  jwksFile: string;
}

/** `JWT_SUBJECT` of a function; the overlays bind `gmsa-webhooks:gmsa-webhooks-<fn>`. */
export function jwtSubject(fn: FunctionName): string {
  return `gmsa-webhooks-${fn}`;
}

/** A fresh P-256 signing key as PKCS8 PEM. */
export async function createJwtSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPairAsync("ec", {
    namedCurve: "P-256",
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return privateKey;
}

/** The `kid` (RFC 7638 thumbprint) the token source and the JWKS give `privateKey`. */
export async function jwtKeyId(privateKey: string): Promise<string> {
  return (await buildPublicJwk({ privateKey, alg: JWT_ALG })).kid!;
}

/** Writes the JWKS of these private keys' public halves; the server answers with it from the next request on. */
export async function publishJwks(issuer: Pick<LocalJwtIssuerInfo, "jwksFile">, privateKeys: string[]): Promise<void> {
  const keys = await Promise.all(privateKeys.map((privateKey) => buildPublicJwk({ privateKey, alg: JWT_ALG })));
  await writeFile(issuer.jwksFile, JSON.stringify({ keys }));
}

/**
 * The `--authentication-config` file's content: one `jwt[]` authenticator for the issuer, whose discovery
 * document is fetched over TLS trusting `caPem`; `sub` becomes the username `gmsa-webhooks:<sub>` and every
 * such user gets the group {@link JWT_GROUP}.
 */
export function buildAuthenticationConfiguration(issuer: LocalJwtIssuerInfo, caPem: string): Record<string, unknown> {
  return {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AuthenticationConfiguration",
    jwt: [
      {
        issuer: { url: issuer.issuer, certificateAuthority: caPem, audiences: [issuer.audience] },
        claimMappings: {
          username: { expression: `'${JWT_USERNAME_PREFIX}' + claims.sub` },
          groups: { expression: `['${JWT_GROUP}']` },
          uid: { expression: "claims.sub" },
        },
        // As infra/deploy/cloudflare/README.md suggests: only the functions' subjects, only short-lived tokens.
        claimValidationRules: [
          {
            expression: `claims.sub in [${FUNCTION_NAMES.map((fn) => `'${jwtSubject(fn)}'`).join(", ")}]`,
            message: "not a gmsa-webhooks function",
          },
          { expression: "claims.exp - claims.iat <= 3600", message: "token lifetime above one hour" },
        ],
      },
    ],
  };
}

/** A running issuer; `close()` stops the server (the files go with the cluster's folder). */
export interface LocalJwtIssuer extends LocalJwtIssuerInfo {
  close(): Promise<void>;
}

/**
 * Makes a signing key per function in `<dir>/jwt-issuer/`, publishes their JWKS and serves the discovery
 * document and JWKS on a free loopback port, with a certificate of `ca`.
 */
export async function startJwtIssuer(dir: string, ca: CertificateAuthority, audience: string): Promise<LocalJwtIssuer> {
  const issuerDir = join(dir, "jwt-issuer");
  await mkdir(issuerDir, { recursive: true });
  const keys = await Promise.all(FUNCTION_NAMES.map(() => createJwtSigningKey()));
  const keyFiles = Object.fromEntries(FUNCTION_NAMES.map((fn) => [fn, join(issuerDir, `${fn}.key`)])) as Record<
    FunctionName,
    string
  >;
  for (const [index, fn] of FUNCTION_NAMES.entries()) await writeFile(keyFiles[fn], keys[index]!, { mode: 0o600 });
  const files: Record<string, string> = {
    [DISCOVERY_PATH]: join(issuerDir, "openid-configuration"),
    [JWKS_PATH]: join(issuerDir, "jwks"),
  };
  const jwksFile = files[JWKS_PATH]!;
  await publishJwks({ jwksFile }, keys);

  const serving = await issueServingCertificate(ca, issuerDir, "issuer", ["127.0.0.1", "localhost"]);
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (request, response) => {
    const file = request.method === "GET" ? files[request.url ?? ""] : undefined;
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => response.writeHead(200, { "content-type": "application/json" }).end(body),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Keeps no process alive on its own: the cluster's processes and the caller's servers do.
  server.unref();
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await writeFile(
    files[DISCOVERY_PATH]!,
    JSON.stringify(buildOpenIdDiscovery({ issuer, jwksUri: `${issuer}${JWKS_PATH}`, alg: JWT_ALG })),
  );
  return {
    issuer,
    audience,
    keyFiles,
    jwksFile,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
