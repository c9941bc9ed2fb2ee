/**
 * The install guides' commands and example files, run or checked the way they can be here (docs/install-*.md,
 * "What is checked here, and how"). The Workers' environments: test/worker/wrangler-envs.test.ts; Azure:
 * install-azure-functions.test.ts.
 */
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { bundleNodeFunction } from "../../../infra/build/node/bundle-function.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import { functionUrlEvent } from "../../support/lambda-events.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { writeWithClusterCa } from "./cluster-ca.ts";
import { awsCommands, readRepoFile, shellBlockWith } from "../../support/guide-text.ts";
import { preparedAwsCli } from "../../support/prepared.ts";
import { runBash, runChild } from "../../support/run-child.ts";
import { run } from "../support/run.ts";

const LAMBDA_GUIDE = "docs/install-aws-lambda.md";
const WORKERS_GUIDE = "docs/install-cloudflare-workers.md";

/**
 * What the guides use that Debian's awscli 2.9.19 does not have, with the first CLI release that has it (the
 * aws-cli repository's `.changes/<version>.json`). A whole command lists the flags its synopsis gives there.
 */
const NEWER_THAN_LOCAL_CLI: Record<string, { since: string; flags?: string[] }> = {
  "eks create-access-entry": {
    since: "2.15.3",
    flags: [
      "--cluster-name",
      "--principal-arn",
      "--kubernetes-groups",
      "--tags",
      "--client-request-token",
      "--username",
      "--type",
    ],
  },
  "lambda add-permission --invoked-via-function-url": { since: "2.31.13" },
};

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! - y![i]!;
  return 0;
}

/**
 * The options `aws <command> help` lists in its synopsis, for many commands in one Python start (the help page is
 * rendered from the same argument tables, at about 4 s a page): command -> options, or null when this CLI has no
 * such command; `""` -> the global options.
 */
const ARGUMENT_TABLES = `
import json, sys
from awscli.clidriver import create_clidriver
driver = create_clidriver()
out = {"": sorted("--" + name for name in driver._get_argument_table())}
for command in json.load(sys.stdin):
    table, found = driver._get_command_table(), None
    try:
        for word in command.split(" "):
            found = table[word]
            table = found.subcommand_table
        out[command] = sorted("--" + name for name in found.arg_table)
    except (KeyError, AttributeError):
        out[command] = None
print(json.dumps(out))
`;

async function synopsisFlags(
  python: string,
  pythonPath: string,
  commands: string[],
): Promise<Record<string, string[] | null>> {
  const { code, stdout } = await runChild(python, ["-c", ARGUMENT_TABLES], {
    env: { PYTHONPATH: pythonPath, PATH: "/usr/bin:/bin", HOME: "/nonexistent" },
    timeout: 60_000,
    stdin: new TextEncoder().encode(JSON.stringify(commands)),
  });
  if (code !== 0) throw new Error(`awscli's argument tables: exit ${code}`);
  return JSON.parse(stdout) as Record<string, string[] | null>;
}

describe("the aws commands of the guides", () => {
  it("exist with every flag they pass in the CLI's own help, or are newer than it and within the stated minimum", async () => {
    const { python, pythonPath } = preparedAwsCli();
    const lambdaGuide = await readRepoFile(LAMBDA_GUIDE);
    const minimum = /\| AWS CLI v2 \| \*\*(\d+\.\d+\.\d+)\*\* \|/.exec(lambdaGuide)?.[1];
    expect(minimum, `${LAMBDA_GUIDE} states the AWS CLI minimum`).toBeDefined();
    const commands = [...awsCommands(lambdaGuide), ...awsCommands(await readRepoFile(WORKERS_GUIDE))];
    expect(commands.map((c) => c.command)).toEqual(
      expect.arrayContaining(["lambda create-function", "eks create-access-entry", "lambda add-permission"]),
    );
    const tables = await synopsisFlags(python, pythonPath, [...new Set(commands.map((c) => c.command))]);
    const global = tables[""]!;
    expect(global).toEqual(expect.arrayContaining(["--query", "--output", "--region"]));
    const synopses = new Map(
      Object.entries(tables).map(([command, flags]) => [command, flags === null ? undefined : [...flags, ...global]]),
    );
    const newer = new Set<string>();
    for (const { command, flags } of commands) {
      const known = synopses.get(command) ?? NEWER_THAN_LOCAL_CLI[command]?.flags;
      expect(known, `aws ${command}: not in the local CLI and not listed as newer`).toBeDefined();
      if (synopses.get(command) === undefined) newer.add(command);
      for (const flag of flags) {
        if (known!.includes(flag)) continue;
        const key = `${command} ${flag}`;
        expect(NEWER_THAN_LOCAL_CLI[key], `aws ${key}: not in the CLI's help`).toBeDefined();
        newer.add(key);
      }
    }
    // Each entry of the table is used, and the guide's minimum covers it.
    expect([...newer].sort()).toEqual(Object.keys(NEWER_THAN_LOCAL_CLI).sort());
    for (const key of newer)
      expect(compareVersions(minimum!, NEWER_THAN_LOCAL_CLI[key]!.since), key).toBeGreaterThanOrEqual(0);
  }, 180_000);
});

describe(`${LAMBDA_GUIDE}: the Lambda bundle with the guide's settings`, () => {
  let dir: string;
  let variables: Record<string, string>;
  let secret: string;

  beforeAll(async () => {
    dir = await tempDir("gmsa-lambda-guide-");
    // The guide's "Settings" block, run as written in a folder shaped like a checkout.
    await mkdir(path.join(dir, "infra/deploy/aws"), { recursive: true });
    await mkdir(path.join(dir, "infra/deploy/overlays/aws-lambda"), { recursive: true });
    await copyFile(
      path.join(REPO_ROOT, "infra/deploy/aws/environment.example.json"),
      path.join(dir, "infra/deploy/aws/environment.example.json"),
    );
    const block = shellBlockWith(await readRepoFile(LAMBDA_GUIDE), "infra/deploy/aws/environment.example.json");
    await runBash(block, { cwd: dir });
    variables = (
      JSON.parse(await readFile(path.join(dir, "env-expand.json"), "utf8")) as { Variables: Record<string, string> }
    ).Variables;
    const secrets = await readFile(path.join(dir, "infra/deploy/overlays/aws-lambda/path-secrets.env"), "utf8");
    secret = /^EXPAND_PATH_SECRET=(\S+)$/m.exec(secrets)![1]!;
  });

  it("writes each function's settings with its own secret, never the placeholder", async () => {
    expect(variables).toMatchObject({
      FUNCTIONS: "expand",
      CALLER_AUTH: "path",
      CALLER_AUTH_PATH_SECRET: secret,
      CLOUD_TOKEN: "eks",
    });
    const authorize = await readFile(path.join(dir, "env-authorize.json"), "utf8");
    expect(authorize).toContain('"FUNCTIONS": "authorize"');
    expect(authorize).not.toContain(secret);
    expect(authorize).not.toContain("REPLACE-");
  });

  it("answers Function URL events: /healthz 200, /readyz 503 naming why, a review at /expand/<secret> allowed, at /expand refused (401)", async () => {
    const outdir = path.join(dir, "dist/aws-lambda");
    const bundle = await bundleNodeFunction({ entry: "functions/aws-lambda/index.ts", outdir });
    // The example kubeconfig with the cluster CA filled in, as the guide's step 1 says.
    const kubeconfig = path.join(outdir, "kubeconfig.yaml");
    await writeWithClusterCa(kubeconfig, await readRepoFile("infra/deploy/aws/kubeconfig.example.yaml"));
    const review = JSON.stringify(buildReview(buildPod(), { uid: "uid-guide" }));
    const post = (p: string) =>
      functionUrlEvent({
        method: "POST",
        path: `${p}?timeout=10s`,
        headers: { "content-type": "application/json" },
        body: review,
      });
    const get = (p: string) => functionUrlEvent({ method: "GET", path: p });
    const events = [get("/healthz"), get("/readyz"), post(`/expand/${secret}`), post("/expand")];
    const script = path.join(dir, "invoke.mjs");
    await writeFile(
      script,
      `const { handler } = await import(${JSON.stringify(path.join(outdir, bundle.entry))});\n` +
        `const results = [];\nfor (const event of ${JSON.stringify(events)}) results.push(await handler(event));\n` +
        "process.stderr.write(JSON.stringify(results));\n",
    );
    // What Lambda sets besides the function's own variables (the execution role's credentials, the region).
    const lambda = {
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret-for-tests",
      AWS_SESSION_TOKEN: "session",
    };
    const env = { ...variables, ...lambda, KUBECONFIG: kubeconfig, PATH: process.env["PATH"] };
    const { stderr } = await run(process.execPath, [script], { cwd: dir, env });
    const [healthz, readyz, allowed, refused] = JSON.parse(stderr.slice(stderr.lastIndexOf("[{"))) as {
      statusCode: number;
      body: string;
    }[];
    expect(healthz).toMatchObject({ statusCode: 200, body: "ok" });
    // The example's EKS endpoint does not resolve here: configured, alive, and not ready, saying why.
    expect(readyz).toMatchObject({ statusCode: 503, body: "not ready: API server unreachable" });
    expect(allowed!.statusCode).toBe(200);
    expect(JSON.parse(allowed!.body)).toMatchObject({ response: { uid: "uid-guide", allowed: true } });
    expect(refused!.statusCode).toBe(401);
  }, 60_000);
});

describe("infra/deploy/aws/aws-auth-maproles.example.yaml", () => {
  it("maps each function's role, by its role ARN, to the group infra/deploy/overlays/aws-lambda binds", async () => {
    const { mapRoles } = parse(await readRepoFile("infra/deploy/aws/aws-auth-maproles.example.yaml")) as {
      mapRoles: string;
    };
    const entries = parse(mapRoles) as { rolearn: string; groups: string[] }[];
    const overlay = await readRepoFile("infra/deploy/overlays/aws-lambda/kustomization.yaml");
    expect(entries.map((entry) => entry.groups)).toEqual([["gmsa-webhooks:expand"], ["gmsa-webhooks:authorize"]]);
    for (const entry of entries) {
      expect(entry.rolearn).toMatch(/^arn:aws:iam::\d{12}:role\/gmsa-(expand|authorize)-lambda$/);
      expect(overlay).toContain(`name: ${entry.groups[0]}`);
    }
  });
});

describe(`${WORKERS_GUIDE}: the JWT token source and the API server's authentication configuration`, () => {
  it("signs RS256 in every wrangler environment, for the issuer, audience and subjects the example configuration trusts", async () => {
    const toml = await readRepoFile("wrangler.toml");
    const values = (name: string) =>
      [...toml.matchAll(new RegExp(`^${name} = "([^"]*)"$`, "gm"))].map((match) => match[1]!);
    const envs = [...toml.matchAll(/^\[env\.[a-z-]+\.vars\]$/gm)].length;
    expect(values("JWT_ALG")).toEqual(Array<string>(envs).fill("RS256"));
    const config = parse(await readRepoFile("infra/deploy/cloudflare/authentication-config.example.yaml")) as {
      jwt: { issuer: { url: string; audiences: string[] }; claimValidationRules: { expression: string }[] }[];
    };
    const [jwt] = config.jwt;
    expect(new Set(values("JWT_ISSUER"))).toEqual(new Set([jwt!.issuer.url]));
    for (const audience of values("JWT_AUDIENCE")) expect(jwt!.issuer.audiences).toContain(audience);
    for (const subject of values("JWT_SUBJECT"))
      expect(jwt!.claimValidationRules[0]!.expression).toContain(`'${subject}'`);
    // The guide's key and flags agree with it: an RSA key, --alg RS256, and the OIDC flags' algorithm.
    const guide = await readRepoFile(WORKERS_GUIDE);
    expect(guide).toContain("openssl genpkey -algorithm RSA");
    expect(guide).toContain("--alg RS256");
    expect(guide).toContain("--oidc-signing-algs=RS256");
    expect(guide).not.toMatch(/--alg ES256|ec_paramgen_curve/);
  });
});

describe(`${WORKERS_GUIDE}: keys and the issuer`, () => {
  it("makes one RSA key per Worker and publishes both in one RS256 JWKS under the issuer's discovery document", async () => {
    const dir = await tempDir("gmsa-issuer-guide-");
    const keys = shellBlockWith(await readRepoFile(WORKERS_GUIDE), "openssl genpkey");
    const merge = shellBlockWith(await readRepoFile(WORKERS_GUIDE), "jq -s");
    // `npm run jwt-issuer --` is package.json's name for the CLI's jwt-issuer command; the folder is not a checkout.
    const script = `${keys}\n${merge}`.replaceAll(
      "npm run --silent jwt-issuer --",
      `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(REPO_ROOT, "cli/gmsa-webhooks.ts"))} jwt-issuer`,
    );
    expect(script).not.toContain("npm run");
    await runBash(script, { cwd: dir });
    const jwks = JSON.parse(await readFile(path.join(dir, "issuer-site/openid/v1/jwks"), "utf8")) as {
      keys: { kty: string; alg: string; kid: string }[];
    };
    expect(jwks.keys.map((key) => [key.kty, key.alg])).toEqual([
      ["RSA", "RS256"],
      ["RSA", "RS256"],
    ]);
    expect(new Set(jwks.keys.map((key) => key.kid)).size).toBe(2);
    const discovery = JSON.parse(
      await readFile(path.join(dir, "issuer-site/.well-known/openid-configuration"), "utf8"),
    ) as { issuer: string; jwks_uri: string };
    const toml = await readRepoFile("wrangler.toml");
    expect(toml).toContain(`JWT_ISSUER = "${discovery.issuer}"`);
    expect(discovery.jwks_uri).toBe(`${discovery.issuer}/openid/v1/jwks`);
    expect(await readFile(path.join(dir, "expand-key.pem"), "utf8")).toContain("-----BEGIN PRIVATE KEY-----");
  }, 60_000);
});

describe("the install guides' links", () => {
  /** GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
  const anchors = (markdown: string) =>
    new Set(
      [...markdown.matchAll(/^#+ (.+)$/gm)].map((match) =>
        match[1]!
          .toLowerCase()
          .replace(/[^\w\- ]/g, "")
          .replace(/ /g, "-"),
      ),
    );

  it.each([
    "docs/install-cloudflare-workers.md",
    "docs/install-aws-lambda.md",
    "docs/install-azure-functions.md",
    "docs/install-container.md",
  ])("%s links only to files and headings that exist", async (guide) => {
    const text = await readRepoFile(guide);
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((link) => !/^[a-z]+:/.test(link));
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) {
      const [file, anchor] = link.split("#", 2) as [string, string | undefined];
      const target = file === "" ? guide : path.posix.join(path.posix.dirname(guide), file);
      const content = await readRepoFile(target).catch(() => undefined);
      expect(content, `${guide}: ${link}`).toBeDefined();
      if (anchor !== undefined) expect(anchors(content!), `${guide}: ${link}`).toContain(anchor);
    }
  });
});
