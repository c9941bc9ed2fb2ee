import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { callerAuth } from "../../../../shared/http/caller-auth.ts";
import { timingSafeEqual } from "../../../../shared/http/timing-safe-equal.ts";
import { createErrorHandler } from "../../../../shared/http/on-error.ts";
import { silentLogger } from "../../../../shared/log.ts";

function app(auth: ReturnType<typeof callerAuth>) {
  const a = new Hono();
  a.onError(createErrorHandler(silentLogger));
  a.post("/", auth, (c) => c.text("in"));
  return a;
}

describe("callerAuth", () => {
  it("lets every caller in with mode none", async () => {
    expect((await app(callerAuth({ mode: "none" })).request("/", { method: "POST" })).status).toBe(200);
  });

  describe("bearer", () => {
    const a = app(callerAuth({ mode: "bearer", tokens: ["first-token", "second-token"] }));

    it.each(["Bearer first-token", "Bearer second-token", "bearer first-token"])("lets %j in", async (authorization) => {
      const res = await a.request("/", { method: "POST", headers: { authorization } });
      expect(res.status).toBe(200);
    });

    it.each([
      ["no header", undefined],
      ["a wrong token", "Bearer third-token"],
      ["a prefix of a token", "Bearer first"],
      ["another scheme", "Basic Zmlyc3QtdG9rZW4="],
      ["no token", "Bearer "],
      ["two tokens", "Bearer first-token second-token"],
    ])("refuses %s with 401 and a WWW-Authenticate challenge", async (_what, authorization) => {
      const res = await a.request("/", { method: "POST", headers: authorization === undefined ? {} : { authorization } });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await res.text()).not.toContain("first-token");
    });
  });

  it.each([[[]], [[""]], [["ok", ""]]])("refuses bearer tokens %j at setup with a TypeError", (tokens) => {
    expect(() => callerAuth({ mode: "bearer", tokens })).toThrow(TypeError);
  });
});

describe("timingSafeEqual", () => {
  it("compares byte arrays", () => {
    expect(timingSafeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(timingSafeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(timingSafeEqual(Uint8Array.of(1, 2), Uint8Array.of(1))).toBe(false);
  });
});
