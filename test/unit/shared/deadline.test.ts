import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { reviewDeadline } from "../../../shared/deadline.ts";
import type { AppEnv } from "../../../shared/http/env.ts";

/** The review deadline's signal for a request with `query`, and the request's answer once the handler resolves. */
function deadlineOf(query: string, answer: (signal: AbortSignal) => Promise<void> = () => Promise.resolve()) {
  let signal: AbortSignal | undefined;
  const app = new Hono<AppEnv>().get("/", reviewDeadline(), async (c) => {
    signal = c.var.signal;
    await answer(signal);
    return c.text("ok");
  });
  const answered = app.request(`/${query}`);
  return { answered, signal: () => signal as AbortSignal };
}

describe("reviewDeadline", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The ms after which the deadline of `?timeout=<timeout>` aborts (fake timers), or undefined past a minute. */
  async function abortsAfter(timeout: string | undefined): Promise<number | undefined> {
    vi.useFakeTimers();
    let aborted: number | undefined;
    const { answered } = deadlineOf(
      timeout === undefined ? "" : `?timeout=${encodeURIComponent(timeout)}`,
      async (signal) => {
        for (let ms = 1; ms <= 60_000 && aborted === undefined; ms++) {
          await vi.advanceTimersByTimeAsync(1);
          if (signal.aborted) aborted = ms;
        }
      },
    );
    await answered;
    return aborted;
  }

  it.each([
    ["10s", 9_000],
    ["30s", 29_000],
    ["1m30s", 29_000],
    ["1m0s", 29_000],
    ["500ms", 400],
    ["1.5s", 1_200],
    ["2m", 29_000],
    ["1s500ms", 1_200],
    ["1s", 800],
    ["10ms", 50],
    ["9999999999s", 29_000],
  ])(
    "aborts at the budget of ?timeout=%s (%d ms: a fifth less, at most 1 s less, at least 50 ms; 30 s at most)",
    async (timeout, ms) => {
      expect(await abortsAfter(timeout)).toBe(ms);
    },
  );

  it.each([
    undefined,
    "",
    "10",
    "s",
    "10x",
    "-1s",
    "0s",
    " 10s",
    "10s ",
    "10 s",
    "1m30",
    "1h",
    "ten seconds",
    "1".repeat(40) + "s",
    "1e3s",
  ])("uses the API server's default 10 s for ?timeout=%j (aborts at 9 s)", async (timeout) => {
    expect(await abortsAfter(timeout)).toBe(9_000);
  });

  it("never aborts once the review is answered", async () => {
    const { answered, signal } = deadlineOf("?timeout=100ms");
    await answered;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(signal().aborted).toBe(false);
  });
});
