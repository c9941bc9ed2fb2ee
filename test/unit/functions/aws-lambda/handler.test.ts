import type { APIGatewayProxyResult, LambdaContext } from "hono/aws-lambda";
import { describe, expect, it } from "vitest";
import { createLambdaHandler } from "../../../../functions/aws-lambda/handler.ts";
import { functionUrlEvent, restApiEvent, type EventOptions } from "../../../support/lambda-events.ts";
import { itServesTheApp, replyOf, startHandler, type ServerlessPlatform } from "../serverless-handler-cases.ts";

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

/** The Lambda handler, sent events of one shape; `base64` sends every body base64-encoded. */
function lambda(shape: (options: EventOptions) => ReturnType<typeof functionUrlEvent>, base64 = false) {
  return {
    name: "AWS Lambda",
    handler: (env, log) => {
      const handler = createLambdaHandler(env, log);
      return async (method, path, headers, body) => {
        const result = await handler(
          shape({ method, path, headers: headers ?? {}, ...(body === undefined ? {} : { body }), base64 }),
          lambdaContext,
        );
        expect(result.isBase64Encoded).toBe(false);
        const { headers: single = {}, multiValueHeaders: multi = {} } = result as APIGatewayProxyResult & {
          headers?: Record<string, string>;
          multiValueHeaders?: Record<string, string[]>;
        };
        return {
          status: result.statusCode,
          contentType: single["content-type"] ?? multi["content-type"]?.[0],
          text: result.body,
        };
      };
    },
  } satisfies ServerlessPlatform;
}

describe.each([
  { name: "Function URL / HTTP API (payload 2.0)", shape: functionUrlEvent },
  { name: "REST API (payload 1.0)", shape: restApiEvent },
])("createLambdaHandler with a $name event", ({ shape }) => {
  itServesTheApp(lambda(shape));
});

describe("createLambdaHandler", () => {
  it("decodes a base64 body (Function URLs may send one)", async () => {
    const { review } = await startHandler(lambda(functionUrlEvent, true));
    expect(replyOf(await review("expand"))).toMatchObject({ uid: "uid-expand", allowed: true });
  });
});
