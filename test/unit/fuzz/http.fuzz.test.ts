import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { BODY_LIMIT_BYTES } from "../../../functions/app.ts";
import { byteNoise, encode, review } from "./arbitraries.ts";
import { checkReply, HTTP_ERRORS } from "./contract.ts";
import { createFuzzApp, expectStillServing, fuzzParameters, PATH_SECRET, FUZZ_TIMEOUT_MS } from "./harness.ts";

const fuzz = createFuzzApp();
/** One body over the limit, shared by the runs that reach 413. */
const OVER_LIMIT = new Uint8Array(BODY_LIMIT_BYTES + 1).fill(0x7b);
const statuses = new Map<number, number>();

afterAll(() => {
  const seen = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}:${n}`)
    .join(" ");
  console.log(`fuzz: ${fuzz.inputs()} HTTP inputs (status:count ${seen})`);
});

const path = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(`/expand/${PATH_SECRET}`, `/authorize/${PATH_SECRET}`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "/expand",
      "/authorize",
      `/expand/${PATH_SECRET.slice(0, -1)}`,
      `/authorize/${PATH_SECRET}x`,
      `/authorize/${PATH_SECRET}/`,
      `/authorize/${PATH_SECRET}/extra`,
      `/expand/${PATH_SECRET.toUpperCase()}`,
      `/metrics/${PATH_SECRET}`,
      "/metrics",
      "/healthz",
      "/version",
      "/",
      "/expand/%",
      "/expand/%ZZ",
      "//expand",
      "/expand/..%2F..%2Fetc",
    ),
  },
  { weight: 1, arbitrary: fc.webPath() },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  fc.constantFrom(
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "text/plain",
    "application/json-patch+json",
    "",
    "multipart/form-data; boundary=x",
  ),
  fc.string({ maxLength: 30 }),
);

const body = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(review, byteNoise).map(([r, noise]) => encode(r, [], noise)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 600 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => new TextEncoder().encode(JSON.stringify(v))) },
  { weight: 1, arbitrary: review.map((r) => encode(r, []).slice(0, 200)) },
  { weight: 1, arbitrary: fc.constant(OVER_LIMIT) },
);

const request = fc.record({
  method: fc.oneof(
    { weight: 6, arbitrary: fc.constant("POST") },
    fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"),
  ),
  path,
  query: fc.oneof(
    fc.constant(""),
    fc.constantFrom("?timeout=10s", "?timeout=1ms", "?timeout=-5s", "?timeout=1h", "?timeout=", "?timeout=9999999999s"),
  ),
  contentType,
  body,
  authorization: fc.option(fc.constantFrom(`Bearer ${PATH_SECRET}`, "Bearer x", "Basic Zm9vOmJhcg=="), {
    nil: undefined,
  }),
});

describe("fuzz: HTTP layer", { timeout: FUZZ_TIMEOUT_MS }, () => {
  it("answers every request with an AdmissionReview or a documented HTTP error, and keeps serving", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = { "content-type": r.contentType };
        if (r.authorization !== undefined) headers.authorization = r.authorization;
        const withBody = r.method !== "GET" && r.method !== "HEAD";
        const res = await fuzz.send(`${r.path}${r.query}`, {
          method: r.method,
          headers,
          ...(withBody ? { body: r.body } : {}),
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const fn = /^\/(expand|authorize)\//.exec(r.path)?.[1] as "expand" | "authorize" | undefined;
        if (res.status === 200 && fn !== undefined && r.path.endsWith(PATH_SECRET) && r.method === "POST") {
          await checkReply(fn, r.body, res);
        } else if (res.status === 200) {
          expect(["/healthz", "/version", "/metrics"]).toContain(r.path);
          await res.body?.cancel();
        } else if (r.method === "HEAD") {
          expect(HTTP_ERRORS.has(res.status)).toBe(true);
        } else {
          expect(HTTP_ERRORS.has(res.status), `HTTP ${res.status} for ${r.method} ${r.path.slice(0, 40)}`).toBe(true);
          const payload = (await res.json()) as { error?: unknown };
          expect(typeof payload.error).toBe("string");
          expect(JSON.stringify(payload)).not.toContain(PATH_SECRET);
        }
        fuzz.checkLogs();
      }),
      fuzzParameters(8000),
    );
    await expectStillServing(fuzz);
  });
});
