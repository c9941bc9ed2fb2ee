import { describe, expect, it } from "vitest";
import { createTestApp } from "../../support/app.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";

describe("the review routes' content type", () => {
  // Bytes, not a string: a string body would get a text/plain content type of its own.
  const body = new TextEncoder().encode(JSON.stringify(buildReview(buildPod())));
  const send = (headers: Record<string, string>) =>
    createTestApp().app.request("/expand", { method: "POST", headers, body });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON;charset=UTF-8",
    " application/json ",
  ])("accepts %j", async (type) => {
    expect((await send({ "content-type": type })).status).toBe(200);
  });

  it.each([
    "text/plain",
    "application/yaml",
    "application/jsonx",
    "application/merge-patch+json",
    "application/x-www-form-urlencoded",
    "",
  ])("refuses %j with 415", async (type) => {
    const res = await send(type === "" ? {} : { "content-type": type });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ error: "content type must be application/json" });
  });
});
