/**
 * Lambda events as AWS sends them: payload format 2.0 (HTTP API, and Function URLs, which use the same shape) and
 * 1.0 (REST API proxy integration). Shapes follow the examples in the Lambda and API Gateway developer guides.
 */
import type { LambdaEvent } from "hono/aws-lambda";

export interface EventOptions {
  method: "GET" | "POST";
  /** Path with an optional query, e.g. "/expand?timeout=10s". */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send the body base64-encoded, as Function URLs and HTTP APIs may. */
  base64?: boolean;
}

const FUNCTION_URL_HOST = "abcdefghijklmnopqrstuvwxyz0123.lambda-url.eu-west-1.on.aws";
const REST_API_HOST = "a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com";

function split(pathWithQuery: string): { path: string; query: string } {
  const [path = "/", query = ""] = pathWithQuery.split("?", 2);
  return { path, query };
}

/** A Function URL (or HTTP API, payload 2.0) event. */
export function functionUrlEvent(options: EventOptions): LambdaEvent {
  const { path, query } = split(options.path);
  const body =
    options.body === undefined ? null : options.base64 ? Buffer.from(options.body).toString("base64") : options.body;
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: query,
    headers: {
      host: FUNCTION_URL_HOST,
      "user-agent": "kube-apiserver-admission",
      "x-amzn-trace-id": "Root=1-5e723db2-4b39d1a4c4b5b0b2e8e55cd0",
      "x-forwarded-for": "203.0.113.7",
      "x-forwarded-port": "443",
      "x-forwarded-proto": "https",
      ...(options.body === undefined ? {} : { "content-length": String(Buffer.byteLength(options.body)) }),
      ...options.headers,
    },
    ...(query === "" ? {} : { queryStringParameters: Object.fromEntries(new URLSearchParams(query)) }),
    requestContext: {
      accountId: "anonymous",
      apiId: "abcdefghijklmnopqrstuvwxyz0123",
      authentication: null,
      authorizer: {},
      domainName: FUNCTION_URL_HOST,
      domainPrefix: "abcdefghijklmnopqrstuvwxyz0123",
      http: {
        method: options.method,
        path,
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.7",
        userAgent: "kube-apiserver-admission",
      },
      requestId: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
      routeKey: "$default",
      stage: "$default",
      time: "12/Mar/2026:19:03:58 +0000",
      timeEpoch: 1773342238000,
    },
    body,
    isBase64Encoded: options.base64 === true && options.body !== undefined,
  };
}

/** A REST API proxy integration (payload 1.0) event, stage "prod". */
export function restApiEvent(options: EventOptions): LambdaEvent {
  const { path, query } = split(options.path);
  const headers: Record<string, string> = {
    Host: REST_API_HOST,
    "User-Agent": "kube-apiserver-admission",
    "X-Forwarded-For": "203.0.113.7",
    "X-Forwarded-Port": "443",
    "X-Forwarded-Proto": "https",
    ...options.headers,
  };
  const params = [...new URLSearchParams(query)];
  return {
    version: "1.0",
    resource: path,
    path,
    httpMethod: options.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    ...(params.length === 0
      ? {}
      : {
          queryStringParameters: Object.fromEntries(params),
          multiValueQueryStringParameters: Object.fromEntries(params.map(([name, value]) => [name, [value]])),
        }),
    requestContext: {
      accountId: "123456789012",
      apiId: "a1b2c3d4e5",
      authorizer: {},
      domainName: REST_API_HOST,
      domainPrefix: "a1b2c3d4e5",
      extendedRequestId: "Fx8PLFBdjoEFbxQ=",
      httpMethod: options.method,
      identity: { sourceIp: "203.0.113.7", userAgent: "kube-apiserver-admission" },
      path: `/prod${path}`,
      protocol: "HTTP/1.1",
      requestId: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
      requestTime: "12/Mar/2026:19:03:58 +0000",
      requestTimeEpoch: 1773342238000,
      resourceId: "2gxmpl",
      resourcePath: path,
      stage: "prod",
    },
    body: options.body === undefined ? null : options.body,
    isBase64Encoded: false,
  };
}
