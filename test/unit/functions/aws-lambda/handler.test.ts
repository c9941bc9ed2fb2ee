import type { APIGatewayProxyResult, LambdaContext } from "hono/aws-lambda";
import { describe, expect, it } from "vitest";
import { createLambdaHandler } from "../../../../functions/aws-lambda/handler.ts";
import type { AdmissionReviewResponse } from "../../../../shared/admission/review.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";
import { CALLER_TOKEN, serverlessEnv, STATIC_KUBE_TOKEN } from "../../../support/serverless-env.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";
import { functionUrlEvent, restApiEvent, type EventOptions } from "../../../support/lambda-events.ts";

const lambdaContext: LambdaContext = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: "gmsa-expand",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:gmsa-expand",
  memoryLimitInMB: "256",
  awsRequestId: "8f5e2b1a-0000-4000-8000-000000000000",
  logGroupName: "/aws/lambda/gmsa-expand",
  logStreamName: "2026/03/12/[$LATEST]0123456789abcdef",
  getRemainingTimeInMillis: () => 10_000,
};

const auth = { authorization: `Bearer ${CALLER_TOKEN}` };
const json = { "content-type": "application/json" };

async function lambda(overrides: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const handler = createLambdaHandler(await serverlessEnv(overrides), {
    write: (line) => lines.push(line),
    error: (message) => errors.push(message),
  });
  return { handler, lines, errors };
}

function reviewEvent(
  shape: (options: EventOptions) => ReturnType<typeof functionUrlEvent>,
  fn: "expand" | "authorize",
  extra: Partial<EventOptions> = {},
) {
  return shape({
    method: "POST",
    path: `/${fn}?timeout=10s`,
    headers: { ...json, ...auth },
    body: JSON.stringify(buildReview(buildPod(), { uid: "uid-lambda" })),
    ...extra,
  });
}

function replyOf(result: APIGatewayProxyResult): AdmissionReviewResponse {
  expect(result.isBase64Encoded).toBe(false);
  return JSON.parse(result.body) as AdmissionReviewResponse;
}

describe.each([
  { name: "Function URL / HTTP API (payload 2.0)", shape: functionUrlEvent },
  { name: "REST API (payload 1.0)", shape: restApiEvent },
])("createLambdaHandler with a $name event", ({ shape }) => {
  it.each(FUNCTION_NAMES)(
    "allows a pod without GMSA at /%s with no API call (200, uid echoed, no patch)",
    async (fn) => {
      const { handler, lines, errors } = await lambda();
      const result = await handler(reviewEvent(shape, fn), lambdaContext);
      expect(errors).toEqual([]);
      expect(result.statusCode).toBe(200);
      const reply = replyOf(result);
      expect(reply.response).toMatchObject({ uid: "uid-lambda", allowed: true });
      expect(reply.response.patch).toBeUndefined();
      expect(lines.join("\n")).not.toContain(CALLER_TOKEN);
      expect(lines.join("\n")).not.toContain(STATIC_KUBE_TOKEN);
    },
  );

  it("passes the app's answers through: /healthz without caller auth, 401 without the token, 405 for GET /expand", async () => {
    const { handler } = await lambda();
    const result = await handler(shape({ method: "GET", path: "/healthz" }), lambdaContext);
    expect(result).toMatchObject({ statusCode: 200, body: "ok" });
    expect((await handler(reviewEvent(shape, "expand", { headers: json }), lambdaContext)).statusCode).toBe(401);
    expect((await handler(shape({ method: "GET", path: "/expand", headers: auth }), lambdaContext)).statusCode).toBe(
      405,
    );
  });
});

describe("createLambdaHandler", () => {
  it("decodes a base64 body (Function URLs may send one)", async () => {
    const { handler } = await lambda();
    const reply = replyOf(await handler(reviewEvent(functionUrlEvent, "expand", { base64: true }), lambdaContext));
    expect(reply.response).toMatchObject({ uid: "uid-lambda", allowed: true });
  });

  it("serves CALLER_AUTH=path at /authorize/<secret> and refuses the plain path (401)", async () => {
    const secret = "p".repeat(48);
    const { handler } = await lambda({
      CALLER_AUTH: "path",
      CALLER_AUTH_TOKENS: undefined,
      CALLER_AUTH_PATH_SECRET: secret,
    });
    const body = JSON.stringify(buildReview(buildPod(), { uid: "uid-path" }));
    const result = await handler(
      functionUrlEvent({ method: "POST", path: `/authorize/${secret}?timeout=10s`, headers: json, body }),
      lambdaContext,
    );
    expect(replyOf(result).response).toMatchObject({ uid: "uid-path", allowed: true });
    expect(
      (await handler(functionUrlEvent({ method: "POST", path: "/authorize", headers: json, body }), lambdaContext))
        .statusCode,
    ).toBe(401);
  });

  it("serves only the functions in FUNCTIONS (404 for the other)", async () => {
    const { handler } = await lambda({ FUNCTIONS: "authorize" });
    expect((await handler(reviewEvent(functionUrlEvent, "expand"), lambdaContext)).statusCode).toBe(404);
    expect((await handler(reviewEvent(functionUrlEvent, "authorize"), lambdaContext)).statusCode).toBe(200);
  });

  // CALLER_AUTH=none with HOST=127.0.0.1 is refused only where the handler tells the configuration it runs on Lambda.
  it("answers 503 to every request when misconfigured, logging every problem once and no secret", async () => {
    const env = { CALLER_AUTH: "none", CALLER_AUTH_TOKENS: undefined, HOST: "127.0.0.1", LOG_LEVEL: "loud" };
    const { handler, errors } = await lambda(env);
    for (const event of [reviewEvent(functionUrlEvent, "expand"), restApiEvent({ method: "GET", path: "/healthz" })]) {
      const result = await handler(event, lambdaContext);
      expect(result.statusCode).toBe(503);
      expect(JSON.parse(result.body)).toEqual({ error: "gmsa-webhooks is misconfigured; see the function's logs" });
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      "CALLER_AUTH=none lets anyone who reaches the function in, and AWS Lambda is reachable",
    );
    expect(errors[0]).toContain("LOG_LEVEL");
  });

  it("answers 503 when the kubeconfig cannot be loaded, naming the file in the log", async () => {
    const { handler, errors } = await lambda({ KUBECONFIG: "/nonexistent/gmsa/kubeconfig" });
    expect((await handler(restApiEvent({ method: "GET", path: "/healthz" }), lambdaContext)).statusCode).toBe(503);
    expect(errors.join("\n")).toContain("/nonexistent/gmsa/kubeconfig");
  });
});
