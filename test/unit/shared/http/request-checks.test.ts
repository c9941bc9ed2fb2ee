import { describe, expect, it } from "vitest";
import { isJsonContentType } from "../../../../shared/http/request-checks.ts";
import { createTestApp } from "../../../support/app.ts";

describe("isJsonContentType", () => {
  it.each(["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", " application/json "])("accepts %j", (type) => {
    expect(isJsonContentType(type)).toBe(true);
  });

  it.each(["text/plain", "application/jsonx", "application/merge-patch+json", "application/x-www-form-urlencoded", ""])("refuses %j", (type) => {
    expect(isJsonContentType(type)).toBe(false);
  });

  it("is what makes a review route answer 415, with or without a content type", async () => {
    const { app } = createTestApp();
    for (const headers of [{ "content-type": "text/plain" }, {}]) {
      const res = await app.request("/expand", { method: "POST", headers, body: new Uint8Array([123, 125]) });
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({ error: "content type must be application/json" });
    }
  });
});
