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

describe("parseGoDuration", () => {
  it.each([
    ["10s", 10_000],
    ["30s", 30_000],
    ["1m30s", 90_000],
    ["1m0s", 60_000],
    ["500ms", 500],
    ["1.5s", 1500],
    ["2m", 120_000],
    ["1s500ms", 1500],
  ])("parses %j as %d ms", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([undefined, "", "10", "s", "10x", "-1s", "0s", " 10s", "10s ", "10 s", "1m30", "ten seconds", "1".repeat(40) + "s", "1e3s"])(
    "refuses %j",
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );
});

describe("reviewBudgetMs", () => {
  it("keeps a fifth of the timeout, at most one second, and at least 50 ms", () => {
    expect(reviewBudgetMs(10_000)).toBe(9_000);
    expect(reviewBudgetMs(1_000)).toBe(800);
    expect(reviewBudgetMs(30_000)).toBe(29_000);
    expect(reviewBudgetMs(10)).toBe(50);
  });
});

describe("deadline", () => {
  function app(defaultTimeoutMs: number) {
    const a = new Hono<AppEnv>();
    a.use(deadline({ defaultTimeoutMs }));
    a.get("/", async (c) => {
      const signal = c.get("deadline");
      const started = Date.now();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      return c.json({ elapsed: Date.now() - started });
    });
    return a;
  }

  it("aborts the signal within the budget of ?timeout=", async () => {
    const res = await app(10_000).request("/?timeout=500ms");
    const { elapsed } = (await res.json()) as { elapsed: number };
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(500);
  });

  it("uses the default without ?timeout= or with a junk one", async () => {
    for (const path of ["/", "/?timeout=junk"]) {
      const { elapsed } = (await (await app(1000).request(path)).json()) as { elapsed: number };
      expect(elapsed).toBeGreaterThanOrEqual(700);
      expect(elapsed).toBeLessThan(1000);
    }
  });

  it("refuses a non-positive default at setup with a TypeError", () => {
    expect(() => deadline({ defaultTimeoutMs: 0 })).toThrow(TypeError);
    expect(() => deadline({ defaultTimeoutMs: Number.NaN })).toThrow(TypeError);
  });
});
