import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { createErrorHandler } from "../../../../shared/http/on-error.ts";
import { createJsonLogger } from "../../../../shared/log.ts";

function setup(error: Error) {
  const lines: string[] = [];
  const app = new Hono();
  app.onError(createErrorHandler(createJsonLogger({ level: "debug", write: (l) => lines.push(l) })));
  app.get("/boom", () => {
    throw error;
  });
  return { app, lines };
}

describe("createErrorHandler", () => {
  it("keeps an HTTPException's status and message", async () => {
    const { app, lines } = setup(new HTTPException(413, { message: "too big" }));
    const res = await app.request("/boom");
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "too big" });
    expect(lines).toEqual([]);
  });

  it("keeps the headers of an HTTPException's ready response", async () => {
    const { app } = setup(
      new HTTPException(401, { res: new Response("{}", { status: 401, headers: { "www-authenticate": 'Bearer realm="x"' } }) }),
    );
    const res = await app.request("/boom");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="x"');
  });

  it("turns anything else into a logged 500 without its message", async () => {
    const { app, lines } = setup(new TypeError("token=abc123 leaked"));
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("abc123");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", path: "/boom", error: "TypeError" });
    expect(lines[0]).not.toContain("abc123");
  });
});
