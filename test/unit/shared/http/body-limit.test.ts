import { describe, expect, it } from "vitest";
import { createBodyLimit, readRequestBody } from "../../../../shared/http/body-limit.ts";
import { HttpError } from "../../../../shared/http/reply.ts";

/** Reads a request's body within `maxBytes` as the Hono routes do: the byte count, or the HttpError's reply. */
function createLimitedApp(maxBytes: number) {
  const limit = createBodyLimit(maxBytes);
  return {
    async request(path: string, init: RequestInit) {
      try {
        const bytes = await readRequestBody(new Request(`http://localhost${path}`, init), limit);
        return new Response(String(bytes?.byteLength ?? 0));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const reply = error.reply();
        return new Response(reply.body, { status: reply.status, headers: reply.headers });
      }
    },
  };
}

/** A chunked body (no Content-Length) of `chunks` pieces of `size` bytes, recording how many were pulled. */
function chunkedBody(chunks: number, size: number) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === chunks) return controller.close();
        pulled++;
        controller.enqueue(new Uint8Array(size));
      },
    },
    { highWaterMark: 0 },
  );
  return { init: { method: "POST", body, duplex: "half" } as RequestInit, pulled: () => pulled };
}

describe("readRequestBody", () => {
  it("passes a body up to the limit through, readable downstream", async () => {
    const app = createLimitedApp(100);
    expect(await (await app.request("/", { method: "POST", body: "x".repeat(100) })).text()).toBe("100");
    expect(await (await app.request("/", chunkedBody(4, 25).init)).text()).toBe("100");
    expect(await (await app.request("/", { method: "POST" })).text()).toBe("0");
  });

  it("refuses a declared Content-Length over the limit with 413 before reading", async () => {
    const app = createLimitedApp(100);
    const body = chunkedBody(10, 100);
    const res = await app.request("/", { ...body.init, headers: { "content-length": "1000" } });
    expect(res.status).toBe(413);
    expect(body.pulled()).toBe(0);
  });

  it("refuses a chunked body with 413 as soon as it passes the limit, reading no further", async () => {
    const app = createLimitedApp(100);
    const body = chunkedBody(1000, 30);
    const res = await app.request("/", body.init);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "request body exceeds 100 bytes" });
    expect(body.pulled()).toBe(4);
  });

  it("counts the bytes even when a small Content-Length is declared", async () => {
    const app = createLimitedApp(100);
    const res = await app.request("/", { ...chunkedBody(10, 30).init, headers: { "content-length": "10" } });
    expect(res.status).toBe(413);
  });

  it("answers 400 when the body cannot be read (the caller went away)", async () => {
    const app = createLimitedApp(100);
    const body = new ReadableStream({
      pull(controller) {
        controller.error(new Error("socket hang up"));
      },
    });
    const res = await app.request("/", { method: "POST", body, duplex: "half" });
    expect(res.status).toBe(400);
  });

  it("refuses a limit that is not a positive integer (TypeError)", () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) expect(() => createBodyLimit(maxBytes)).toThrow(TypeError);
  });
});
