import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { createJsonMetrics } from "../../../../functions/metrics.ts";
import type { AppEnv } from "../../../../shared/http/env.ts";
import { createErrorHandler } from "../../../../shared/http/on-error.ts";
import { createJsonLogger } from "../../../../shared/log.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { gmsaReview } from "../../../support/reviews.ts";
import { post } from "../../../support/requests.ts";

const SECRET = "another-secret-path-segment-0123456789";

describe("the logged path", () => {
  it.each([
    ["/", "/"],
    ["/expand", "/expand"],
    [`/expand/${SECRET}`, "/expand/…"],
    ["/expand/", "/expand/…"],
    [`/${"x".repeat(40)}`, `/${"x".repeat(32)}/…`],
  ])("%s is logged as %s", async (path, logged) => {
    const { app, lines } = setup(new TypeError("boom"));
    await app.request(path);
    expect(JSON.parse(lines[0]!)).toMatchObject({ path: logged });
  });
});

describe("error handler", () => {
  it("answers an unexpected error with a generic 500 and logs the method and first path segment only", async () => {
    const { app, logger } = createCallerAuthTestApp(
      { mode: "path", secrets: [SECRET] },
      {
        metrics: {
          ...createJsonMetrics(),
          reviews: {
            record() {
              throw new RangeError(`counter overflow at /authorize/${SECRET}`);
            },
          },
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
});

function setup(error: Error) {
  const lines: string[] = [];
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(createJsonLogger({ level: "debug", write: (l) => lines.push(l) })));
  app.get("*", () => {
    throw error;
  });
  return { app, lines };
}

describe("createErrorHandler", () => {
  it("keeps an HTTPException's status and message, unlogged, and the headers of its ready response", async () => {
    const { app, lines } = setup(new HTTPException(413, { message: "too big" }));
    const res = await app.request("/boom");
    expect([res.status, await res.json(), lines]).toEqual([413, { error: "too big" }, []]);
    const headers = { "www-authenticate": 'Bearer realm="x"' };
    const ready = setup(new HTTPException(401, { res: new Response("{}", { status: 401, headers }) }));
    const challenged = await ready.app.request("/boom");
    expect([challenged.status, challenged.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="x"']);
  });
});
