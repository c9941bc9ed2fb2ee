import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildServerlessApp } from "../../../functions/node/deps.ts";
import { expectNoSecretFragments, responseText } from "../../support/no-secrets.ts";
import { serverlessEnv } from "../../support/serverless-env.ts";
import { tempDir } from "../../support/temp-dir.ts";

/** What the Lambda and Azure handlers serve: the app from the Node deps, or the 503 app after one report. */
async function prepare(overrides: Record<string, string | undefined>, runtime: "lambda" | "azure" = "lambda") {
  const errors: string[] = [];
  const log = { write: () => undefined, error: (message: string) => void errors.push(message) };
  return { app: await buildServerlessApp(await serverlessEnv(overrides), runtime, (app) => app, log), errors };
}

describe("misconfiguredApp on a function platform", () => {
  it.each(["lambda", "azure"] as const)(
    "refuses CALLER_AUTH=mtls on %s: the platform ends TLS, the function never sees the certificate",
    async (runtime) => {
      const { app, errors } = await prepare(
        { CALLER_AUTH: "mtls", CALLER_AUTH_TOKENS: undefined, CALLER_AUTH_CLIENT_CA_FILE: "/etc/ca.pem" },
        runtime,
      );
      expect((await app.request("/expand", { method: "POST" })).status).toBe(503);
      expect(errors.join("\n")).toMatch(/CALLER_AUTH=mtls needs the Node server/);
    },
  );

  it("rejects with anything that is not a configuration problem", async () => {
    const env = new Proxy<Record<string, string>>(
      {},
      {
        get: () => {
          throw new RangeError("broken environment");
        },
      },
    );
    await expect(buildServerlessApp(env, "lambda", (app) => app, { write: () => undefined })).rejects.toThrow(
      RangeError,
    );
  });
});

describe("the 503 app built from a configuration that holds secrets", () => {
  // Random, so that any 8-character piece of one in an answer or the log can only be an echo.
  const secret = () => randomBytes(30).toString("base64url");
  const held = {
    CALLER_AUTH_TOKENS: secret(),
    METRICS_TOKENS: secret(),
    AWS_SECRET_ACCESS_KEY: secret(),
    kubeToken: secret(),
  };

  /** A kubeconfig whose user holds a token, its line indented with `indent`. */
  async function kubeconfigWithToken(indent: string): Promise<string> {
    const file = path.join(await tempDir("gmsa-misconfigured-"), "kubeconfig.yaml");
    const lines = [
      "apiVersion: v1",
      "kind: Config",
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
      "users:",
      "- name: u",
      "  user:",
      `${indent}token: ${held.kubeToken}`,
      "contexts: [{name: c, context: {cluster: c, user: u}}]",
      "current-context: c",
    ];
    await writeFile(file, `${lines.join("\n")}\n`);
    return file;
  }

  it.each([
    [
      "a setting it cannot read",
      "LOG_LEVEL must be one of",
      async () => ({ KUBECONFIG: await kubeconfigWithToken("    "), LOG_LEVEL: "chatty" }),
    ],
    // A tab-indented line, a common pasting mistake: YAML parsers quote the offending line, here the token's.
    [
      "a kubeconfig that is not valid YAML",
      "not valid YAML",
      async () => ({ KUBECONFIG: await kubeconfigWithToken("\t") }),
    ],
  ])(
    "for %s: every answer is 503 naming the misconfiguration, the log names the problem, neither holds a piece of a secret",
    async (_, problem, cause) => {
      const { CALLER_AUTH_TOKENS, METRICS_TOKENS, AWS_SECRET_ACCESS_KEY } = held;
      const { app, errors } = await prepare({
        CALLER_AUTH_TOKENS,
        METRICS_TOKENS,
        AWS_SECRET_ACCESS_KEY,
        ...(await cause()),
      });
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(problem);
      expectNoSecretFragments(errors[0]!, Object.values(held));
      for (const [method, path] of [
        ["POST", "/expand"],
        ["GET", "/healthz"],
        ["GET", "/metrics"],
        ["PUT", "/nowhere"],
      ] as const) {
        const res = await app.request(path, { method, headers: { authorization: `Bearer ${CALLER_AUTH_TOKENS}` } });
        expect(res.status).toBe(503);
        const text = await responseText(res);
        expect(text).toMatch(/"error":"gmsa-webhooks is misconfigured/);
        expectNoSecretFragments(text, Object.values(held));
      }
    },
  );
});
