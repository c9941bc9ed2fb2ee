import { describe, expect, it } from "vitest";
import { createMisconfiguredApp, MISCONFIGURED_BODY, prepareServerlessApp } from "../../../../functions/node/serverless-app.ts";
import { CALLER_TOKEN, serverlessEnv } from "../../../support/serverless-env.ts";

async function prepare(overrides: Record<string, string | undefined>) {
  const errors: string[] = [];
  const app = await prepareServerlessApp(await serverlessEnv(overrides), { write: () => undefined, error: (message) => errors.push(message) });
  return { app, errors };
}

describe("prepareServerlessApp", () => {
  it("builds the real app from a usable environment, logging nothing as an error", async () => {
    const { app, errors } = await prepare({});
    expect(await (await app.request("/healthz")).text()).toBe("ok");
    expect(errors).toEqual([]);
  });

  it("resolves to a 503-only app and logs every configuration problem in one message", async () => {
    const { app, errors } = await prepare({ CALLER_AUTH_TOKENS: undefined, RANDOM_HOSTNAME: "maybe", MAX_CREDSPECS_PER_POD: "0" });
    expect((await app.request("/healthz")).status).toBe(503);
    expect(errors).toHaveLength(1);
    for (const name of ["CALLER_AUTH_TOKENS", "RANDOM_HOSTNAME", "MAX_CREDSPECS_PER_POD"]) expect(errors[0]).toContain(name);
  });

  it("refuses CALLER_AUTH=mtls: the platform ends TLS, the function never sees the certificate", async () => {
    const { app, errors } = await prepare({ CALLER_AUTH: "mtls", CALLER_AUTH_TOKENS: undefined, CALLER_AUTH_CLIENT_CA_FILE: "/etc/ca.pem" });
    expect((await app.request("/expand", { method: "POST" })).status).toBe(503);
    expect(errors.join("\n")).toMatch(/CALLER_AUTH=mtls needs the Node server/);
  });

  it("rejects with anything that is not a configuration problem", async () => {
    const env = new Proxy<Record<string, string>>({}, {
      get: () => {
        throw new RangeError("broken environment");
      },
    });
    await expect(prepareServerlessApp(env, { error: () => undefined })).rejects.toThrow(RangeError);
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
