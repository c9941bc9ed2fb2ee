import { describe, expect, it } from "vitest";
import { redactPath } from "../../../../shared/http/on-error.ts";
import { createTestApp, gmsaReview, post } from "./fixtures.ts";

const SECRET = "another-secret-path-segment-0123456789";

describe("redactPath", () => {
  it.each([
    ["/", "/"],
    ["/expand", "/expand"],
    [`/expand/${SECRET}`, "/expand/…"],
    ["/expand/", "/expand/…"],
    [`/${"x".repeat(40)}`, `/${"x".repeat(32)}/…`],
    ["", "/"],
  ])("%s is logged as %s", (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });
});

describe("error handler", () => {
  it("answers an unexpected error with a generic 500 and logs the method and first path segment only", async () => {
    const { app, logger } = createTestApp(
      { mode: "path", secrets: [SECRET] },
      {
        counters: {
          record() {
            throw new RangeError(`counter overflow at /authorize/${SECRET}`);
          },
          snapshot: () => ({}),
        },
      },
    );
    const res = await app.request(`/authorize/${SECRET}`, post(gmsaReview()));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal error" });
    expect(logger.lines).toContainEqual({
      level: "error",
      msg: "unhandled error",
      fields: { method: "POST", path: "/authorize/…", error: "RangeError" },
    });
    expect(logger.text()).not.toContain(SECRET);
  });

  it("keeps an HTTPException's ready response (its headers included)", async () => {
    const { app } = createTestApp({ mode: "bearer", tokens: ["tok-0123456789abcdef"] });
    const res = await app.request("/expand", post(gmsaReview()));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });
});
