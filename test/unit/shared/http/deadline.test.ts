import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_WEBHOOK_TIMEOUT_MS, parseGoDuration, reviewBudgetMs, startDeadline } from "../../../../shared/http/deadline.ts";

describe("startDeadline limits", () => {
  it("clamps a ?timeout= past Kubernetes' 30 s maximum instead of failing (AbortSignal.timeout's range)", async () => {
    const deadline = startDeadline("9999999999s");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deadline.signal.aborted).toBe(false);
    deadline.clear();
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

  it.each([undefined, "", "10", "s", "10x", "-1s", "0s", " 10s", "10s ", "10 s", "1m30", "1h", "ten seconds", "1".repeat(40) + "s", "1e3s"])(
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

describe("startDeadline", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** How long after it starts the deadline of `timeout` aborts, in ms. */
  async function elapsedUntilAbort(timeout: string | undefined): Promise<number> {
    const { signal } = startDeadline(timeout);
    const started = Date.now();
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    return Date.now() - started;
  }

  it("aborts the signal within the budget of ?timeout=", async () => {
    const elapsed = await elapsedUntilAbort("500ms");
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(500);
  });

  it("uses the API server's default 10 s without ?timeout= or with a junk one (aborts at 9 s)", () => {
    vi.useFakeTimers();
    for (const timeout of [undefined, "junk"]) {
      const { signal } = startDeadline(timeout);
      vi.advanceTimersByTime(8_999);
      expect(signal.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(signal.aborted).toBe(true);
    }
  });

  it("never aborts once cleared", async () => {
    const deadline = startDeadline("100ms");
    deadline.clear();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(deadline.signal.aborted).toBe(false);
  });
});
