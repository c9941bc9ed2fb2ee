/**
 * Mints the caller JWT the API server presents to the functions (CALLER_AUTH=jwt), for jwt/kubeconfig.yaml.
 *
 *   node caller-token.ts keygen --key caller-key.pem [--alg ES256]
 *       writes a new private key (PKCS#8 PEM, mode 0600) and prints the public JWKS for CALLER_AUTH_JWT_JWKS
 *   node caller-token.ts jwks --key caller-key.pem [--alg ES256]
 *       prints the public JWKS of an existing key
 *   node caller-token.ts mint --key caller-key.pem --issuer I --audience A [--subject S] [--ttl 900] --out caller.jwt
 *       writes a token valid for --ttl seconds, atomically (temporary file, then rename), mode 0600
 *
 * Run `mint` from cron or a systemd timer well within the lifetime (every 5 minutes for 15-minute tokens): the
 * API server re-reads the token file about once a minute. The key id is the key's JWK thumbprint. `--key` (keygen)
 * and `--out` create their folder when it is missing, mode 0700 (secret-file.ts).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { exportPKCS8, generateKeyPair, importPKCS8, SignJWT } from "jose";
import { buildJwks, buildPublicJwk } from "../../shared/credentials/jwt.ts";
import { writeSecretFile } from "./secret-file.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    key: { type: "string" },
    alg: { type: "string", default: "ES256" },
    issuer: { type: "string" },
    audience: { type: "string" },
    subject: { type: "string", default: "system:kube-apiserver" },
    ttl: { type: "string", default: "900" },
    out: { type: "string" },
  },
});

function required(name: "key" | "issuer" | "audience" | "out"): string {
  const value = values[name];
  if (value === undefined || value === "") throw new Error(`--${name} is required`);
  return value;
}

const alg = values.alg;
switch (positionals[0]) {
  case "keygen": {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    const pem = await exportPKCS8(privateKey);
    await writeSecretFile(required("key"), pem);
    console.log(JSON.stringify(await buildJwks({ privateKey: pem, alg })));
    break;
  }
  case "jwks": {
    console.log(JSON.stringify(await buildJwks({ privateKey: await readFile(required("key"), "utf8"), alg })));
    break;
  }
  case "mint": {
    const pem = await readFile(required("key"), "utf8");
    const privateKey = await importPKCS8(pem, alg);
    const { kid } = await buildPublicJwk({ privateKey: pem, alg });
    const ttl = Number(values.ttl);
    if (!Number.isInteger(ttl) || ttl < 60 || ttl > 86_400) throw new Error("--ttl must be 60 to 86400 seconds");
    const token = await new SignJWT({})
      .setProtectedHeader({ alg, typ: "JWT", ...(kid === undefined ? {} : { kid }) })
      .setIssuer(required("issuer"))
      .setAudience(required("audience"))
      .setSubject(values.subject)
      .setIssuedAt()
      .setNotBefore("0s")
      .setExpirationTime(`${ttl}s`)
      .sign(privateKey);
    await writeSecretFile(required("out"), token);
    break;
  }
  default:
    console.error("usage: caller-token.ts keygen|jwks|mint --key <pem> [options] (see the comment at the top)");
    process.exitCode = 2;
}
