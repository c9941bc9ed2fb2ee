/**
 * `gmsa-webhooks caller-token` (`npm run caller-token`): the caller JWT the API server presents to the functions
 * (CALLER_AUTH=jwt), for infra/deploy/caller-auth/jwt/kubeconfig.yaml. `keygen` writes a new private key and prints its
 * public JWKS for CALLER_AUTH_JWT_JWKS, `jwks` prints an existing key's, `mint` writes a token.
 *
 * Run `mint` from cron or a systemd timer well within the lifetime (every 5 minutes for 15-minute tokens): the API
 * server re-reads the token file about once a minute. The key id is the key's JWK thumbprint. `--key` (keygen) and
 * `--out` create their folder when it is missing, mode 0700 (secret-file.ts).
 */
import { exportPKCS8, generateKeyPair, importPKCS8, SignJWT } from "jose";
import { buildJwks, buildPublicJwk } from "../../shared/credentials/jwt.ts";
import { command, EXIT_INVALID, EXIT_OK, readInput, type CliIo, type CommandLine } from "../io.ts";
import { writeSecretFile } from "./secret-file.ts";

const TEXT = { type: "string" } as const;
const OPTIONS = {
  key: TEXT,
  alg: { type: "string", default: "ES256" },
  issuer: TEXT,
  audience: TEXT,
  subject: { type: "string", default: "system:kube-apiserver" },
  ttl: { type: "string", default: "900" },
  out: TEXT,
  force: { type: "boolean" },
} as const;

type Line = CommandLine<typeof OPTIONS>;
type Action = "keygen" | "jwks" | "mint";

/** The flags each action takes, and which of them it needs; `--alg` applies to all three. */
const ACTION_FLAGS: Record<Action, { takes: readonly string[]; needs: readonly string[] }> = {
  keygen: { takes: ["key", "alg", "force"], needs: ["key"] },
  jwks: { takes: ["key", "alg"], needs: ["key"] },
  mint: {
    takes: ["key", "alg", "issuer", "audience", "subject", "ttl", "out"],
    needs: ["key", "issuer", "audience", "out"],
  },
};

/** A token's lifetime bounds, in seconds: at least a minute, at most a day. */
const MIN_TTL_S = 60;
const MAX_TTL_S = 86_400;

/** Every usage problem of a command line: the action, flags it does not take or needs, an empty value, `--ttl`. */
function checkCallerTokenLine({ values, positionals }: Line): string[] {
  const action = positionals[0];
  if (positionals.length !== 1 || !Object.hasOwn(ACTION_FLAGS, action ?? "")) {
    const got = positionals.map((word) => JSON.stringify(word)).join(" ");
    return [
      positionals.length === 0
        ? "missing action: one of keygen, jwks, mint"
        : `expected one action (keygen, jwks, mint), got ${got}`,
    ];
  }
  const { takes, needs } = ACTION_FLAGS[action as Action];
  const errors: string[] = [];
  // Defaults (alg, subject, ttl) are present whether given or not, so only a flag outside every default is refused.
  for (const [flag, value] of Object.entries(values)) {
    if (value === undefined || flag === "help") continue;
    if (!takes.includes(flag) && !("default" in OPTIONS[flag as keyof typeof OPTIONS])) {
      errors.push(`--${flag} does not apply to ${action}`);
    } else if (value === "") errors.push(`--${flag} is empty`);
  }
  for (const flag of needs) {
    if (values[flag as keyof typeof values] === undefined) errors.push(`${action} needs --${flag}`);
  }
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl < MIN_TTL_S || ttl > MAX_TTL_S) {
    errors.push(`--ttl must be ${MIN_TTL_S} to ${MAX_TTL_S} seconds, got ${JSON.stringify(values.ttl)}`);
  }
  return errors;
}

/** Runs one action; the key and token go to files only, the JWKS (public) to stdout. */
async function runAction({ values, positionals }: Line, io: CliIo): Promise<number> {
  const { alg, key = "" } = values;
  switch (positionals[0] as Action) {
    case "keygen": {
      const { privateKey } = await generateKeyPair(alg, { extractable: true });
      const pem = await exportPKCS8(privateKey);
      try {
        await writeSecretFile(key, pem, { replace: values.force === true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        // A mistyped --key would replace the live key, and every token signed with it would then be refused (401).
        io.stderr(`${io.program} caller-token: ${key} exists; keygen replaces a key only with --force\n`);
        return EXIT_INVALID;
      }
      io.stdout(`${JSON.stringify(await buildJwks({ privateKey: pem, alg }))}\n`);
      return EXIT_OK;
    }
    case "jwks": {
      const pem = await readInput(io, "caller-token", key);
      if (pem === undefined) return EXIT_INVALID;
      io.stdout(`${JSON.stringify(await buildJwks({ privateKey: new TextDecoder().decode(pem), alg }))}\n`);
      return EXIT_OK;
    }
    case "mint": {
      const bytes = await readInput(io, "caller-token", key);
      if (bytes === undefined) return EXIT_INVALID;
      const pem = new TextDecoder().decode(bytes);
      const privateKey = await importPKCS8(pem, alg);
      const { kid } = await buildPublicJwk({ privateKey: pem, alg });
      const token = await new SignJWT({})
        .setProtectedHeader({ alg, typ: "JWT", ...(kid === undefined ? {} : { kid }) })
        .setIssuer(values.issuer ?? "")
        .setAudience(values.audience ?? "")
        .setSubject(values.subject)
        .setIssuedAt()
        .setNotBefore("0s")
        .setExpirationTime(`${Number(values.ttl)}s`)
        .sign(privateKey);
      await writeSecretFile(values.out ?? "", token);
      return EXIT_OK;
    }
  }
}

/** `gmsa-webhooks caller-token keygen|jwks|mint`: resolves to the exit status. A key or token never reaches stdout or stderr. */
export const runCallerTokenCommand = command({
  name: "caller-token",
  options: OPTIONS,
  usage: `Usage: gmsa-webhooks caller-token <keygen | jwks | mint> --key <pem> [options]

The caller JWT the API server presents to the functions under CALLER_AUTH=jwt
(infra/deploy/caller-auth/README.md; the kubeconfig is infra/deploy/caller-auth/jwt/kubeconfig.yaml):
  keygen  writes a new private key to --key (PKCS#8 PEM, mode 0600) and prints the public
          JWKS for CALLER_AUTH_JWT_JWKS; it refuses a --key that exists unless --force
  jwks    prints the public JWKS of the key in --key
  mint    writes a token valid for --ttl seconds to --out, atomically (a temporary file,
          then a rename), mode 0600; run it from cron or a timer well within --ttl

Options:
  --key <pem>           the private key (keygen writes it, jwks and mint read it), required
  --alg <alg>           the key's algorithm (default ES256)
  --force               keygen: replace the key in --key when it exists (tokens it signed then fail)
  --issuer <iss>        mint: the token's iss, as CALLER_AUTH_JWT_ISSUER (required)
  --audience <aud>      mint: the token's aud, as CALLER_AUTH_JWT_AUDIENCE (required)
  --subject <sub>       mint: the token's sub (default system:kube-apiserver)
  --ttl <seconds>       mint: lifetime, ${MIN_TTL_S} to ${MAX_TTL_S} (default 900)
  --out <file>          mint: the token file the kubeconfig's tokenFile names (required)
  -h, --help            show this help

--key (keygen) and --out create their folder when it is missing, mode 0700.
Exit status: 0 done, 1 the key cannot be read, made or used, a file not written, or keygen's
--key exists without --force, 2 usage error. Neither the key nor a token is ever printed.
`,
  check: checkCallerTokenLine,
  async run(line, io) {
    try {
      return await runAction(line, io);
    } catch (error) {
      // jose's and the file system's messages name the problem (an unsupported algorithm, EACCES), never the key.
      io.stderr(`${io.program} caller-token: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_INVALID;
    }
  },
});
