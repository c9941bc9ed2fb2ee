/**
 * An HTTP answer as plain data: what the review endpoint (functions/review-endpoint.ts) returns on every runtime,
 * written out by each adapter (a Hono Response, Node's ServerResponse, a Lambda result). Our answers are small
 * JSON, so the body is always a string.
 */
export interface HttpReply {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** A JSON answer; `content-type: application/json`, as Hono's `c.json` writes it. */
export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): HttpReply {
  return { status, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(value) };
}

/** What a path the surface does not route answers (and an open route or /metrics asked with another method than GET or HEAD). */
export const NOT_FOUND = (): HttpReply => jsonReply(404, { error: "not found" });

/**
 * A request that is not a usable review (413, 415, 400): answered `{"error": message}` with `status`. The message
 * is ours, never an echo of the input.
 */
export class HttpError extends Error {
  override name = "HttpError";
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }

  reply(): HttpReply {
    return jsonReply(this.status, { error: this.message });
  }
}
