/**
 * Every environment of wrangler.toml as docs/install-cloudflare-workers.md deploys it: built by `wrangler deploy
 * --dry-run` and started in workerd with its vars and exactly the secrets the guide's table names for it, so the
 * caller-auth mode the environment names is the one in force.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { exportPKCS8, generateKeyPair } from "jose";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkerBundle } from "../../infra/build/cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";
import { buildPod } from "../support/pods.ts";
import { buildReview } from "../support/reviews.ts";
import { createTestPki, type TestPki } from "../support/test-pki.ts";
import { startWorker } from "./support/worker.ts";

const GUIDE = "docs/install-cloudflare-workers.md";
const read = (file: string): Promise<string> => readFile(path.join(REPO_ROOT, file), "utf8");

/** `[env.<name>]` headers of wrangler.toml, in order. */
function wranglerEnvs(toml: string): string[] {
  return [...toml.matchAll(/^\[env\.([a-z-]+)\]$/gm)].map((match) => match[1]!);
}

/** The guide's table of environments: each row's environments and the secrets it names for them. */
function guideSecrets(guide: string): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const [, envCell, secretsCell] of guide.matchAll(
    /^\| ((?:`[a-z-]+`(?:, )?)+) \| `\w+` \| ((?:`[A-Z_]+`(?:, )?)+) \|/gm,
  )) {
    const secrets = [...secretsCell!.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!);
    for (const [, env] of envCell!.matchAll(/`([a-z-]+)`/g)) table.set(env!, secrets);
  }
  return table;
}

const env = wranglerEnvs(await read("wrangler.toml"));
const guide = await read(GUIDE);
const secretsByEnv = guideSecrets(guide);
let pki: TestPki;
let secretValues: Record<string, string>;
const workers: Miniflare[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  // As the guide makes it: openssl genpkey -algorithm RSA (PKCS8), for JWT_ALG=RS256.
  const { privateKey } = await generateKeyPair("RS256", { extractable: true, modulusLength: 2048 });
  secretValues = {
    KUBECONFIG: await read("infra/deploy/cloudflare/kubeconfig.example.yaml"),
    JWT_PRIVATE_KEY: await exportPKCS8(privateKey),
    CALLER_AUTH_TOKENS: "caller-token-for-the-guide-test-0123",
    CALLER_AUTH_PATH_SECRET: "0123456789abcdef0123456789abcdef0123456789abcdef",
  };
  // expand and authorize are built by global-setup.ts; the others here, to the folder startWorker reads.
  const extra = env.filter((name) => name !== "expand" && name !== "authorize");
  await Promise.all(extra.map((name) => buildWorkerBundle(name, path.join(REPO_ROOT, ".cache", "worker", name))));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.dispose()));
  await pki.cleanup();
});

describe(`wrangler.toml and ${GUIDE}`, () => {
  it("has one environment per function and caller-auth mode, each in the guide's table, whose secrets alone it puts, deploying them all", () => {
    expect(env).toEqual(["expand", "authorize", "expand-jwt", "authorize-jwt", "expand-path", "authorize-path"]);
    expect([...secretsByEnv.keys()].sort()).toEqual([...env].sort());
    const puts = [...guide.matchAll(/wrangler secret put ([A-Z_]+) --env ([a-z-]+)/g)];
    expect(puts.length).toBeGreaterThan(0);
    for (const [line, name, target] of puts) expect(secretsByEnv.get(target!), line).toContain(name);
    const deploys = [...guide.matchAll(/wrangler deploy (?:--dry-run )?--env ([a-z-]+)/g)].map((match) => match[1]!);
    expect(new Set(deploys)).toEqual(new Set(env));
  });

  it.each(env)(
    "env %s: the dry-run bundle with the guide's secrets is configured and refuses an unauthenticated review (401)",
    async (name) => {
      const secrets = Object.fromEntries(secretsByEnv.get(name)!.map((secret) => [secret, secretValues[secret]!]));
      const w = startWorker(name, secrets, pki.caPem);
      workers.push(w);
      const health = await w.dispatchFetch("https://worker.example/healthz");
      expect(health.status, await health.text()).toBe(200);
      const fn = name.replace(/-.*/, "");
      const review = await w.dispatchFetch(`https://worker.example/${fn}?timeout=10s`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(buildReview(buildPod())),
      });
      expect(review.status).toBe(401);
    },
  );
});
