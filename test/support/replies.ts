/** Assertions on a webhook's AdmissionReview reply, shared by the handler tests. */
import { expect } from "vitest";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";

/** A refusal with `code` whose message names every one of `mentions`. */
export function expectDenied(reply: AdmissionReviewResponse, code: number, ...mentions: string[]): void {
  expect(reply.response.allowed).toBe(false);
  expect(reply.response.status?.code).toBe(code);
  for (const text of mentions) expect(reply.response.status?.message).toContain(text);
}
