import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { deadline, MAX_WEBHOOK_TIMEOUT_MS, parseGoDuration, reviewBudgetMs } from "../../../../shared/http/deadline.ts";
import type { AppEnv } from "../../../../shared/http/env.ts";

describe("parseGoDuration", () => {
  it.each([
    ["10s", 10_000],
    ["1m30s", 90_000],
    ["500ms", 500],
    ["1.5s", 1500],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([undefined, "", "10", "s", "-5s", "1h", "10s ", "0s", "9".repeat(40) + "s"])("gives undefined for %j", (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});

describe("deadline", () => {
  function createDeadlineApp() {
    const app = new Hono<AppEnv>();
    app.use(deadline({ defaultTimeoutMs: 10_000 }));
    app.get("/", (c) => c.json({ aborted: c.get("deadline").aborted }));
    return app;
  }

  it("clamps a ?timeout= past Kubernetes' 30 s maximum instead of failing (AbortSignal.timeout's range)", async () => {
    const res = await createDeadlineApp().request("/?timeout=9999999999s");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ aborted: false });
    expect(reviewBudgetMs(MAX_WEBHOOK_TIMEOUT_MS)).toBe(29_000);
  });

  it("keeps at least 50 ms for a tiny timeout", () => {
    expect(reviewBudgetMs(1)).toBe(50);
  });
});
