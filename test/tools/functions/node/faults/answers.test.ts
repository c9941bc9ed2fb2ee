/**
 * Fault matrix (MATRIX.md), API answers (issue 5, rows 4, 5 and 9): 429 and 5xx, once and persistently, and
 * malformed 200s. A GET is retried once within the deadline (after Retry-After when given); a POST is not.
 */
import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES } from "../../../../../shared/config/index.ts";
import type { Fault } from "../../../../support/kube-server.ts";
import { BUDGET_MS, expectAllowed, expectRecovery, FIRST_REVIEW_TIMEOUT, SLACK_MS, useFaultWorld } from "./harness.ts";

const world = useFaultWorld();

const TOO_MANY = { kind: "status", status: 429, reason: "TooManyRequests" } as const;

describe.each(FUNCTION_NAMES)("%s against an API server that answers badly", (fn) => {
  const lsar = fn === "authorize" ? 1 : 0;

  /** Injects a fault the client rides out with its one GET retry: allowed, within the budget. */
  it.each([
    { fault: "429 Retry-After: 1 once on the GET", inject: { ...TOO_MANY, retryAfter: "1", times: 1 }, minMs: 1000 },
    { fault: "503 once on the GET", inject: { kind: "status", status: 503, reason: "ServiceUnavailable", times: 1 } },
  ] as { fault: string; inject: Fault; minMs?: number }[])("retries after $fault and is allowed", async (row) => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn, FIRST_REVIEW_TIMEOUT));
    world.api.inject(row.inject, ["credspec"]);
    world.api.reset();
    const result = await webhook.review(fn);
    expectAllowed(result);
    expect(result.ms).toBeLessThan(BUDGET_MS + SLACK_MS);
    expect(result.ms).toBeGreaterThanOrEqual(row.minMs ?? 0);
    expect(world.api.count("credspec")).toBe(2);
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    world.report({
      fault: row.fault,
      fn,
      outcome: "allowed",
      ms: result.ms,
      recovery: `GET retried once; ${recovery}`,
    });
  });

  it.each<{ fault: string; inject: Fault; message: RegExp; credspec: number; lsarToo?: true }>([
    // After one retry of the GET.
    {
      fault: "429 storm (Retry-After: 1)",
      inject: { ...TOO_MANY, retryAfter: "1" },
      message: /reading GMSACredentialSpec "webapp1": API server answered 429 TooManyRequests/,
      credspec: 2,
      lsarToo: true,
    },
    // By the deadline, when Retry-After reaches past the review's budget.
    {
      fault: "429 storm (Retry-After: 3, past the budget)",
      inject: { ...TOO_MANY, retryAfter: "3" },
      message: /reading GMSACredentialSpec "webapp1": API server answered 429 TooManyRequests/,
      credspec: 1,
    },
    {
      fault: "persistent 500",
      inject: { kind: "status", status: 500, reason: "InternalError" },
      message: /reading GMSACredentialSpec "webapp1": API server answered 500 InternalError/,
      credspec: 2,
      lsarToo: true,
    },
    {
      fault: "persistent 503",
      inject: { kind: "status", status: 503, reason: "ServiceUnavailable" },
      message: /API server answered 503 ServiceUnavailable/,
      credspec: 2,
    },
    // Without retrying.
    {
      fault: "200 with a non-JSON body",
      inject: { kind: "non-json" },
      message: /reading GMSACredentialSpec "webapp1": API server answered 200 without a JSON body/,
      credspec: 1,
      lsarToo: true,
    },
  ])("denies with 500 on $fault", async ({ fault, inject, message, credspec, lsarToo }) => {
    const expected = { code: 500, message, errors: ["ERR_KUBE_API"] };
    const calls = await world.denialRow({ fn, fault, inject, expected });
    expect(calls.credspec).toBe(credspec);
    if (lsarToo) expect(calls.lsar).toBe(lsar);
  });

  it("denies with 422 ERR_CREDSPEC_WITHOUT_CONTENTS when the credspec object has no credspec field", async () => {
    await world.denialRow({
      fn,
      fault: "credspec object without `credspec`",
      inject: { kind: "credspec-without-contents" },
      endpoints: ["credspec"],
      expected: {
        code: 422,
        message: /GMSACredentialSpec "webapp1" has no credspec field/,
        errors: ["ERR_CREDSPEC_WITHOUT_CONTENTS"],
      },
    });
  });
});

describe("authorize against an API server that answers the access review badly", () => {
  it.each<{ what: string; fault: string; inject: Fault; message: RegExp }>([
    {
      what: "comes back without status",
      fault: "200 LSAR without status",
      inject: { kind: "lsar-without-status" },
      message: /has no status\.allowed/,
    },
    {
      what: "is answered 503 once: a POST is not retried",
      fault: "503 once on the LSAR (POST)",
      inject: { kind: "status", status: 503, reason: "ServiceUnavailable", times: 1 },
      message: /use GMSACredentialSpec "webapp1": API server answered 503/,
    },
  ])("denies with 500 when the LocalSubjectAccessReview $what", async ({ fault, inject, message }) => {
    const expected = { code: 500, message, errors: ["ERR_KUBE_API"] };
    const calls = await world.denialRow({ fn: "authorize", fault, inject, endpoints: ["lsar"], expected });
    expect(calls.lsar).toBe(1);
  });
});
