/**
 * What a function-platform handler (AWS Lambda, Azure Functions) does with the app it wraps, written once: each
 * platform's handler.test.ts describes how to call its handler ({@link ServerlessPlatform}) and runs these cases.
 */
import { expect, it } from "vitest";
import type { AdmissionReviewResponse } from "../../../shared/admission/review.ts";
import { FUNCTION_NAMES, type Bindings, type FunctionName } from "../../../shared/config/index.ts";
import { buildPod } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";
import { CALLER_TOKEN, serverlessEnv, STATIC_KUBE_TOKEN } from "../../support/serverless-env.ts";

export interface Answer {
  status: number;
  contentType: string | null | undefined;
  text: string;
}

export interface ServerlessPlatform {
  /** How CALLER_AUTH=none's refusal names the platform. */
  name: string;
  /** The platform's handler from `env` and `log`, as a function of one request as the platform hands it over. */
  handler(
    env: Bindings,
    log: { write(line: string): void; error(message: string): void },
  ): (method: "GET" | "POST", path: string, headers?: Record<string, string>, body?: string) => Promise<Answer>;
}

const auth = { authorization: `Bearer ${CALLER_TOKEN}` };
const json = { "content-type": "application/json" };
const reviewOf = (uid: string) => JSON.stringify(buildReview(buildPod(), { uid }));

/** The handler of `platform` from the serverless environment with `overrides`, and what it logged. */
export async function startHandler(platform: ServerlessPlatform, overrides: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const send = platform.handler(await serverlessEnv(overrides), {
    write: (line) => lines.push(line),
    error: (message) => errors.push(message),
  });
  const review = (fn: FunctionName, headers: Record<string, string> = { ...json, ...auth }, path = `/${fn}`) =>
    send("POST", `${path}?timeout=10s`, headers, reviewOf(`uid-${fn}`));
  return { send, review, lines, errors };
}

/** The AdmissionReview reply of a 200 JSON answer. */
export function replyOf(answer: Answer): AdmissionReviewResponse["response"] {
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^application\/json/);
  return (JSON.parse(answer.text) as AdmissionReviewResponse).response;
}

/** The cases every platform's handler passes; call inside the platform's describe. */
export function itServesTheApp(platform: ServerlessPlatform): void {
  it.each(FUNCTION_NAMES)(
    "allows a pod without GMSA at /%s with no API call (200, uid echoed, no patch)",
    async (fn) => {
      const { review, lines, errors } = await startHandler(platform);
      const response = replyOf(await review(fn));
      expect(response).toMatchObject({ uid: `uid-${fn}`, allowed: true });
      expect(response.patch).toBeUndefined();
      expect(errors).toEqual([]);
      expect(lines.join("\n")).not.toContain(CALLER_TOKEN);
      expect(lines.join("\n")).not.toContain(STATIC_KUBE_TOKEN);
    },
  );

  it("passes the app's answers through: /healthz without caller auth, 401 without the token, 405 for GET /expand", async () => {
    const { send, review } = await startHandler(platform);
    const healthz = await send("GET", "/healthz");
    expect([healthz.status, healthz.text]).toEqual([200, "ok"]);
    expect((await review("expand", json)).status).toBe(401);
    expect((await send("GET", "/expand", auth)).status).toBe(405);
  });

  it.each(FUNCTION_NAMES)("serves CALLER_AUTH=path at /%s/<secret> and refuses the plain path (401)", async (fn) => {
    const secret = "p".repeat(48);
    const overrides = { CALLER_AUTH: "path", CALLER_AUTH_TOKENS: undefined, CALLER_AUTH_PATH_SECRET: secret };
    const { review } = await startHandler(platform, overrides);
    expect(replyOf(await review(fn, json, `/${fn}/${secret}`))).toMatchObject({ uid: `uid-${fn}`, allowed: true });
    expect((await review(fn, json)).status).toBe(401);
  });

  it("serves only the functions in FUNCTIONS (404 for the other)", async () => {
    const { review } = await startHandler(platform, { FUNCTIONS: "authorize" });
    expect((await review("expand")).status).toBe(404);
    expect((await review("authorize")).status).toBe(200);
  });

  // HOST=127.0.0.1 would let the Node server run CALLER_AUTH=none: the handler tells the configuration its platform.
  it("answers 503 to every request when misconfigured, logging every problem once and no secret", async () => {
    const { send, review, errors } = await startHandler(platform, {
      CALLER_AUTH: "none",
      HOST: "127.0.0.1",
      LOG_LEVEL: "loud",
    });
    for (const answer of [await review("expand"), await send("GET", "/healthz")]) {
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text)).toEqual({ error: "gmsa-webhooks is misconfigured; see the function's logs" });
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      `CALLER_AUTH=none lets anyone who reaches the function in, and ${platform.name} is reachable`,
    );
    expect(errors[0]).toContain("LOG_LEVEL");
    expect(errors[0]).not.toContain(CALLER_TOKEN);
  });

  it("answers 503 when the kubeconfig cannot be loaded, naming the file in the log", async () => {
    const { send, errors } = await startHandler(platform, { KUBECONFIG: "/nonexistent/gmsa/kubeconfig" });
    expect((await send("GET", "/healthz")).status).toBe(503);
    expect(errors.join("\n")).toContain("/nonexistent/gmsa/kubeconfig");
  });
}
