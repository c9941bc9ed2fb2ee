import { describe, expect, it } from "vitest";
import { createApp } from "../../../functions/app.ts";
import { createMisconfiguredApp, MISCONFIGURED_BODY, misconfiguredApp } from "../../../functions/misconfigured.ts";
import { buildNodeDeps } from "../../../functions/node/deps.ts";
import type { Bindings } from "../../../shared/config/index.ts";
import { CALLER_TOKEN, serverlessEnv } from "../../support/serverless-env.ts";

/** What the Lambda and Azure handlers serve: the app from the Node deps, or the 503 app after one report. */
async function serverlessApp(env: Bindings, runtime: "lambda" | "azure", error: (message: string) => void) {
  return buildNodeDeps(env, runtime, { write: () => undefined }).then(
    ({ deps }) => createApp(deps),
    (failure: unknown) => misconfiguredApp(failure, error),
  );
}

async function prepare(overrides: Record<string, string | undefined>, runtime: "lambda" | "azure" = "lambda") {
  const errors: string[] = [];
  const app = await serverlessApp(await serverlessEnv(overrides), runtime, (message) => errors.push(message));
  return { app, errors };
}

describe("misconfiguredApp on a function platform", () => {
  it("is not needed for a usable environment: the real app, nothing logged as an error", async () => {
    const { app, errors } = await prepare({});
    expect(await (await app.request("/healthz")).text()).toBe("ok");
    expect(errors).toEqual([]);
  });

  it("resolves to a 503-only app and logs every configuration problem in one message", async () => {
    const { app, errors } = await prepare({ CALLER_AUTH_TOKENS: undefined, RANDOM_HOSTNAME: "maybe", SHUTDOWN_DELAY_SECONDS: "-1" });
    expect((await app.request("/healthz")).status).toBe(503);
    expect(errors).toHaveLength(1);
    for (const name of ["CALLER_AUTH_TOKENS", "RANDOM_HOSTNAME", "SHUTDOWN_DELAY_SECONDS"]) expect(errors[0]).toContain(name);
  });

  it.each(["lambda", "azure"] as const)("refuses CALLER_AUTH=mtls on %s: the platform ends TLS, the function never sees the certificate", async (runtime) => {
    const { app, errors } = await prepare({ CALLER_AUTH: "mtls", CALLER_AUTH_TOKENS: undefined, CALLER_AUTH_CLIENT_CA_FILE: "/etc/ca.pem" }, runtime);
    expect((await app.request("/expand", { method: "POST" })).status).toBe(503);
    expect(errors.join("\n")).toMatch(/CALLER_AUTH=mtls needs the Node server/);
  });

  it("rejects with anything that is not a configuration problem", async () => {
    const env = new Proxy<Record<string, string>>({}, {
      get: () => {
        throw new RangeError("broken environment");
      },
    });
    await expect(serverlessApp(env, "lambda", () => undefined)).rejects.toThrow(RangeError);
  });
});

describe("createMisconfiguredApp", () => {
  it.each(["GET /healthz", "POST /expand", "PUT /nowhere"])("answers %s with 503 and a body naming no secret", async (call) => {
    const [method, path] = call.split(" ") as [string, string];
    const res = await createMisconfiguredApp().request(path, { method });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(MISCONFIGURED_BODY);
    expect(text).not.toContain(CALLER_TOKEN);
  });
});
