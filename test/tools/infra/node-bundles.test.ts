/** The bundles of the Node-based targets as their builds write them, within issue 12's budget. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_SERVER_OPTIONS } from "../../../infra/build/node/heap-limits.ts";
import {
  buildNodeTarget,
  FUNCTION_BUNDLE_LIMIT_BYTES,
  loadedAtStart,
} from "../../../infra/build/node/bundle-function.ts";
import { serverlessEnv } from "../../support/serverless-env.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { startServerChild } from "../../support/listening-port.ts";

/**
 * Packages a function platform's bundle never holds: the Node server's (its HTTP server, undici's pool, Prometheus
 * metrics), the Kubernetes client (types only), and @azure/functions, the Azure host's own (the entry imports it).
 */
const NEVER_IN_FUNCTIONS = [
  "node_modules/undici/",
  "node_modules/@hono/node-server/",
  "functions/node/prometheus",
  "node_modules/prom-client/",
  "node_modules/@kubernetes/client-node/",
  "node_modules/@azure/functions/",
];
/** Loaded only when configured: JWT (jose), cloud tokens, exec plugins, token files. */
const NOT_AT_START = [
  "node_modules/jose/",
  "node_modules/aws4fetch/",
  "shared/credentials/exec-credential.ts",
  "functions/node/kube/run-plugin.ts",
  "shared/credentials/token-file.ts",
  "shared/credentials/cloud-token-source.ts",
  "shared/caller-auth/jwt-verifier.ts",
];

const matching = (inputs: readonly string[], prefixes: readonly string[]) =>
  inputs.filter((input) => prefixes.some((prefix) => input.includes(prefix)));

describe("the function platforms' bundles", () => {
  it.each(["lambda", "azure"] as const)(
    "keep %s within 600 KiB raw, without the Node server's packages, rare modes in chunks",
    async (target) => {
      const outdir = await tempDir(`gmsa-bundle-${target}-`);
      const bundle = await buildNodeTarget(target, outdir);
      expect(bundle.bytes).toBeLessThanOrEqual(FUNCTION_BUNDLE_LIMIT_BYTES);
      expect(matching(Object.keys(bundle.metafile.inputs), NEVER_IN_FUNCTIONS)).toEqual([]);
      const entry = await readFile(path.join(outdir, bundle.entry), "utf8");
      expect(/from ?"@azure\/functions"/.test(entry), "imports @azure/functions").toBe(target === "azure");
      const start = loadedAtStart(bundle);
      expect(start.files).toContain(bundle.entry);
      expect(matching(start.inputs, NOT_AT_START)).toEqual([]);
      // Each of them is still in the bundle, behind a dynamic import.
      expect(
        NOT_AT_START.filter((prefix) => matching(Object.keys(bundle.metafile.inputs), [prefix]).length === 0),
      ).toEqual([]);
      // No CommonJS inside, so no `require` shim at the top of each chunk for a cold start to run.
      for (const file of bundle.files)
        expect(await readFile(path.join(outdir, file), "utf8")).not.toContain("createRequire");
    },
  );
});

describe("the Node server's bundle", () => {
  it.each([["--enable-source-maps"], NODE_SERVER_OPTIONS.split(" ")])(
    "serves /healthz from its folder alone, as the image runs it, with %s",
    async (...nodeArgs) => {
      const dir = await tempDir("gmsa-bundle-server-");
      const bundle = await buildNodeTarget("server", path.join(dir, "dist", "node"));
      expect(bundle.entry).toBe("server.mjs");
      const env = { ...(await serverlessEnv()), PATH: process.env["PATH"], HOST: "127.0.0.1", PORT: "0" };
      const server = await startServerChild([...nodeArgs, "dist/node/server.mjs"], { cwd: dir, env });
      try {
        const response = await fetch(`http://127.0.0.1:${server.port}/healthz`);
        expect([response.status, await response.text()]).toEqual([200, "ok"]);
      } finally {
        await server.stop();
      }
    },
  );
});
