/**
 * Fault matrix, transport faults (issue 5, rows 1-3): the API server refuses connections, resets them mid-answer,
 * or answers too slowly. Each ends in a fail-closed 500 within the review's budget, and the same server recovers
 * when the fault clears.
 */
import { describe, expect, it } from "vitest";
import { BUDGET_MS, expectAllowed, expectDenied, expectRecovery, FUNCTIONS, useFaultWorld } from "./harness.ts";

const world = useFaultWorld();
const NO_ANSWER = /reading GMSACredentialSpec "webapp1": no answer from the API server within the deadline/;

describe.each(FUNCTIONS)("%s against an unreachable or slow API server", (fn) => {
  it("denies with 500 while connections are refused, and recovers once the API server listens again", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn));
    await world.api.stop();
    const denied = await webhook.review(fn);
    const message = expectDenied(world, webhook, denied, {
      code: 500,
      message: /API server unreachable \(ECONNREFUSED\)/,
      errors: ["ERR_KUBE_API"],
    });
    await world.api.start();
    const recovery = await expectRecovery(webhook, fn);
    world.report({ fault: "connection refused", fn, outcome: 500, ms: denied.ms, message, recovery });
  });

  it("denies with 500 when the connection is reset mid-answer, after one retry of the GET", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn));
    world.api.inject({ kind: "reset" });
    world.api.reset();
    const denied = await webhook.review(fn);
    const message = expectDenied(world, webhook, denied, {
      code: 500,
      message: /reading GMSACredentialSpec "webapp1": API server unreachable \(ECONNRESET\)/,
      errors: ["ERR_KUBE_API"],
    });
    expect(world.api.count("credspec")).toBe(2);
    expect(world.api.count("lsar")).toBe(fn === "authorize" ? 1 : 0);
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    world.report({ fault: "reset mid-response", fn, outcome: 500, ms: denied.ms, message, recovery });
  });

  it("denies with 500 by the deadline when the API server never answers", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn));
    world.api.inject({ kind: "hang" });
    world.api.reset();
    const denied = await webhook.review(fn);
    const message = expectDenied(world, webhook, denied, {
      code: 500,
      message: NO_ANSWER,
      errors: ["ERR_DEADLINE_EXCEEDED"],
    });
    expect([world.api.count("credspec"), world.api.count("lsar")]).toEqual([1, fn === "authorize" ? 1 : 0]);
    expect(denied.ms).toBeGreaterThanOrEqual(BUDGET_MS - 50);
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    world.report({ fault: "no answer (slow beyond the deadline)", fn, outcome: 500, ms: denied.ms, message, recovery });
  });

  it("denies with 500 by the deadline when the answer's body stalls halfway", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn));
    world.api.inject({ kind: "stall-body" });
    world.api.reset();
    const denied = await webhook.review(fn);
    const message = expectDenied(world, webhook, denied, {
      code: 500,
      message: NO_ANSWER,
      errors: ["ERR_DEADLINE_EXCEEDED"],
    });
    expect([world.api.count("credspec"), world.api.count("lsar")]).toEqual([1, fn === "authorize" ? 1 : 0]);
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    world.report({
      fault: "headers, then the body stalls halfway",
      fn,
      outcome: 500,
      ms: denied.ms,
      message,
      recovery,
    });
  });
});
