import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createErrorHandler } from "../../../../shared/http/on-error.ts";
import { requireJson } from "../../../../shared/http/request-checks.ts";
import { silentLogger } from "../../../../shared/log.ts";

describe("requireJson", () => {
  const app = new Hono();
  app.onError(createErrorHandler(silentLogger));
  app.post("/", requireJson(), (c) => c.text("in"));

  it.each(["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", " application/json "])(
    "accepts %j",
    async (type) => {
      expect((await app.request("/", { method: "POST", headers: { "content-type": type }, body: "{}" })).status).toBe(200);
    },
  );

  it.each(["text/plain", "application/jsonx", "application/merge-patch+json", "application/x-www-form-urlencoded", ""])(
    "refuses %j with 415",
    async (type) => {
      const res = await app.request("/", { method: "POST", headers: { "content-type": type }, body: "{}" });
      expect(res.status).toBe(415);
    },
  );

  it("refuses a body without content type with 415", async () => {
    const res = await app.request("/", { method: "POST", body: new Uint8Array([123, 125]) });
    expect(res.status).toBe(415);
  });
});
