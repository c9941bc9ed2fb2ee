/**
 * Fault matrix, API answers (issue 5, rows 4, 5 and 9): 429 and 5xx, once and persistently, and malformed 200s.
 * A GET is retried once within the deadline (after Retry-After when given); a POST is not. Persistent failures
 * end in a fail-closed 500, a credspec without `credspec` in 422, and the same server recovers when the fault
 * clears.
 */
import { describe, expect, it } from "vitest";
import type { Fault } from "../../../../support/kube-server.ts";
import {
  BUDGET_MS,
  expectAllowed,
  expectDenied,
  expectRecovery,
  FUNCTIONS,
  SLACK_MS,
  useFaultWorld,
  type ExpectedDenial,
} from "./harness.ts";

const world = useFaultWorld();

const TOO_MANY = { kind: "status", status: 429, reason: "TooManyRequests" } as const;

describe.each(FUNCTIONS)("%s against an API server that answers badly", (fn) => {
  /** Injects `fault`, expects the denial, heals, expects recovery, reports the row. */
  async function denialRow(name: string, fault: Fault, expected: ExpectedDenial, endpoints?: ("credspec" | "lsar")[]) {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn));
    world.api.inject(fault, endpoints);
    world.api.reset();
    const denied = await webhook.review(fn);
    const message = expectDenied(world, webhook, denied, expected);
    const calls = { credspec: world.api.count("credspec"), lsar: world.api.count("lsar") };
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    world.report({ fault: name, fn, outcome: expected.code, ms: denied.ms, message, recovery });
    return calls;
  }

  /** Injects a fault the client rides out with its one GET retry: allowed, within the budget. */
  async function retriedRow(name: string, fault: Fault) {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn));
    world.api.inject(fault, ["credspec"]);
    world.api.reset();
    const result = await webhook.review(fn);
    expectAllowed(result);
    expect(result.ms).toBeLessThan(BUDGET_MS + SLACK_MS);
    expect(world.api.count("credspec")).toBe(2);
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    world.report({ fault: name, fn, outcome: "allowed", ms: result.ms, recovery: `GET retried once; ${recovery}` });
    return result;
  }

  it("retries a GET answered 429 with Retry-After: 1 once, after a second, and is allowed", async () => {
    const result = await retriedRow("429 Retry-After: 1 once on the GET", { ...TOO_MANY, retryAfter: "1", times: 1 });
    expect(result.ms).toBeGreaterThanOrEqual(1000);
  });

  it("denies with 500 in time under a 429 storm, after one retry of the GET", async () => {
    const calls = await denialRow(
      "429 storm (Retry-After: 1)",
      { ...TOO_MANY, retryAfter: "1" },
      {
        code: 500,
        message: /reading GMSACredentialSpec "webapp1": API server answered 429 TooManyRequests/,
        errors: ["ERR_KUBE_API"],
      },
    );
    expect(calls).toEqual({ credspec: 2, lsar: fn === "authorize" ? 1 : 0 });
  });

  it("denies with 500 by the deadline when Retry-After reaches past the review's budget", async () => {
    const calls = await denialRow(
      "429 storm (Retry-After: 3, past the budget)",
      { ...TOO_MANY, retryAfter: "3" },
      {
        code: 500,
        message: /reading GMSACredentialSpec "webapp1": API server answered 429 TooManyRequests/,
        errors: ["ERR_KUBE_API"],
      },
    );
    expect(calls.credspec).toBe(1);
  });

  it("retries a GET answered 503 once and is allowed", async () => {
    await retriedRow("503 once on the GET", { kind: "status", status: 503, reason: "ServiceUnavailable", times: 1 });
  });

  it("denies with 500 when the API server keeps answering 500, after one retry of the GET", async () => {
    const calls = await denialRow(
      "persistent 500",
      { kind: "status", status: 500, reason: "InternalError" },
      {
        code: 500,
        message: /reading GMSACredentialSpec "webapp1": API server answered 500 InternalError/,
        errors: ["ERR_KUBE_API"],
      },
    );
    expect(calls).toEqual({ credspec: 2, lsar: fn === "authorize" ? 1 : 0 });
  });

  it("denies with 500 when the API server keeps answering 503, after one retry of the GET", async () => {
    const calls = await denialRow(
      "persistent 503",
      { kind: "status", status: 503, reason: "ServiceUnavailable" },
      {
        code: 500,
        message: /API server answered 503 ServiceUnavailable/,
        errors: ["ERR_KUBE_API"],
      },
    );
    expect(calls.credspec).toBe(2);
  });

  it("denies with 500 when a 200 carries no JSON, without retrying", async () => {
    const calls = await denialRow(
      "200 with a non-JSON body",
      { kind: "non-json" },
      {
        code: 500,
        message: /reading GMSACredentialSpec "webapp1": API server answered 200 without a JSON body/,
        errors: ["ERR_KUBE_API"],
      },
    );
    expect(calls).toEqual({ credspec: 1, lsar: fn === "authorize" ? 1 : 0 });
  });

  it("denies with 422 ERR_CREDSPEC_WITHOUT_CONTENTS when the credspec object has no credspec field", async () => {
    await denialRow(
      "credspec object without `credspec`",
      { kind: "credspec-without-contents" },
      {
        code: 422,
        message: /GMSACredentialSpec "webapp1" has no credspec field/,
        errors: ["ERR_CREDSPEC_WITHOUT_CONTENTS"],
      },
      ["credspec"],
    );
  });
});

describe("authorize against an API server that answers the access review badly", () => {
  it("denies with 500 when the LocalSubjectAccessReview comes back without status", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review("authorize"));
    world.api.inject({ kind: "lsar-without-status" }, ["lsar"]);
    const denied = await webhook.review("authorize");
    const message = expectDenied(world, webhook, denied, {
      code: 500,
      message: /has no status\.allowed/,
      errors: ["ERR_KUBE_API"],
    });
    // expand makes no access review, so the same fault leaves it alone.
    expectAllowed(await webhook.review("expand"));
    world.api.heal();
    const recovery = await expectRecovery(webhook, "authorize");
    world.report({ fault: "200 LSAR without status", fn: "authorize", outcome: 500, ms: denied.ms, message, recovery });
  });

  it("denies with 500 when the LocalSubjectAccessReview is answered 503 once: a POST is not retried", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review("authorize"));
    world.api.inject({ kind: "status", status: 503, reason: "ServiceUnavailable", times: 1 }, ["lsar"]);
    world.api.reset();
    const denied = await webhook.review("authorize");
    const message = expectDenied(world, webhook, denied, {
      code: 500,
      message: /use GMSACredentialSpec "webapp1": API server answered 503/,
      errors: ["ERR_KUBE_API"],
    });
    expect(world.api.count("lsar")).toBe(1);
    const recovery = await expectRecovery(webhook, "authorize");
    world.report({
      fault: "503 once on the LSAR (POST)",
      fn: "authorize",
      outcome: 500,
      ms: denied.ms,
      message,
      recovery,
    });
  });
});
