/**
 * Fault matrix (MATRIX.md), credentials (issue 5, rows 6-8): the API server refuses a token (401) while the exec
 * plugin recovers, fails, or hangs.
 */
import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES } from "../../../../../shared/config/index.ts";
import { eventually, isAlive } from "../../../../support/exec-plugins.ts";
import type { RecordedRequest as Call } from "../../../../support/kube-server.ts";
import {
  BUDGET_MS,
  EXEC_TIMEOUT_MS,
  expectAllowed,
  expectDenied,
  expectRecovery,
  FIRST_REVIEW_TIMEOUT,
  useFaultWorld,
} from "./harness.ts";

const world = useFaultWorld();

/** `[token's run, answer]` of each call to `endpoint`, in order. */
function answersTo(endpoint: Call["endpoint"]): [string | undefined, Call["answer"]][] {
  return world.api.requests
    .filter((call) => call.endpoint === endpoint)
    .map((call) => [call.token?.split(".")[0], call.answer]);
}

describe.each(FUNCTION_NAMES)("%s with an exec plugin", (fn) => {
  it("on a 401 runs the plugin once more, retries once with the new token and is allowed", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn, FIRST_REVIEW_TIMEOUT));
    expect(webhook.pluginRuns()).toBe(1);
    world.api.inject({ kind: "reject-first-token" });
    world.api.reset();
    const result = await webhook.review(fn);
    expectAllowed(result);
    expect(webhook.pluginRuns()).toBe(2);
    expect(answersTo("credspec")).toEqual([
      ["fault-1", 401],
      ["fault-2", 200],
    ]);
    expect(answersTo("lsar")).toEqual(
      fn === "authorize"
        ? [
            ["fault-1", 401],
            ["fault-2", 201],
          ]
        : [],
    );
    world.api.heal();
    const recovery = await expectRecovery(webhook, fn);
    expect(webhook.pluginRuns()).toBe(2);
    expect(await webhook.metrics()).toMatchObject({ execRuns_success: 2, execRuns_pluginError: 0 });
    world.report({
      fault: "401, plugin recovers (new token)",
      fn,
      outcome: "allowed",
      ms: result.ms,
      recovery: `plugin ran 2 times, 1 retry; ${recovery}`,
    });
  });

  it("replaces a token that worked and is then refused, again and again, without backing off", async () => {
    const webhook = await world.startWebhook();
    expectAllowed(await webhook.review(fn, FIRST_REVIEW_TIMEOUT));
    const started = performance.now();
    // Three revocations within a minute, each of a token that had been accepted: never "refused in a row".
    for (let revocation = 1; revocation <= 3; revocation++) {
      world.api.inject({ kind: "reject-first-token" });
      expectAllowed(await webhook.review(fn));
      world.api.heal();
      expectAllowed(await webhook.review(fn));
    }
    expect(webhook.pluginRuns()).toBe(4);
    const recovery = await expectRecovery(webhook, fn);
    const ms = Math.round(performance.now() - started);
    world.report({
      fault: "401 on a token that had worked, 3 times in a minute",
      fn,
      outcome: "allowed",
      ms,
      recovery: `plugin ran 4 times, never backed off; ${recovery}`,
    });
  });

  it.each([
    {
      fault: "401 for every token",
      why: "every token is refused",
      // 2, or 3 when the burst outlasts the 1 s backoff on a loaded machine and one more run is refused (runs <= 3 below).
      message:
        /exec plugin ".+" issued [23] credentials in a row that the API server refused \(401\)|API server answered 401 Unauthorized: it rejected our credential/,
    },
    {
      fault: "401, plugin then exits 1",
      why: "a 401 meets a broken plugin",
      pluginMode: "fail-after-first" as const,
      message: /exec plugin ".+" exited with code 1: error: the identity provider is unavailable/,
    },
  ])("denies with 500 when $why, and does not run the plugin once per review under a burst", async (row) => {
    const webhook = await world.startWebhook({ pluginMode: row.pluginMode ?? "ok" });
    expectAllowed(await webhook.review(fn, FIRST_REVIEW_TIMEOUT));
    world.api.inject({ kind: row.pluginMode === undefined ? "reject-all-tokens" : "reject-first-token" });
    const expected = { code: 500, message: row.message, errors: ["ERR_CREDENTIALS"] };
    const denied = await webhook.review(fn);
    const message = expectDenied(world, webhook, denied, expected);
    if (row.pluginMode !== undefined)
      expect(webhook.logFor(denied.uid)?.["credentials"]).toContain(`exec plugin "${process.execPath}"`);
    expect(webhook.pluginRuns()).toBe(2);
    const burst = await Promise.all(Array.from({ length: 20 }, () => webhook.review(fn)));
    for (const result of burst) expectDenied(world, webhook, result, expected);
    const runs = webhook.pluginRuns();
    expect(runs).toBeLessThanOrEqual(3);
    await webhook.setPluginMode("ok");
    world.api.heal();
    // A failed or refused run put the plugin in backoff (1 s, doubling): reviews wait for it, then succeed.
    const recovery = await expectRecovery(webhook, fn, 5000);
    const fixed = row.pluginMode === undefined ? "" : "plugin fixed: ";
    world.report({
      fault: row.fault,
      fn,
      outcome: 500,
      ms: denied.ms,
      message,
      recovery: `burst of 20: ${runs} plugin runs in all; ${fixed}${recovery}`,
    });
  });

  it(
    "denies with 500 by the deadline while the plugin hangs; the exec timeout kills it later; fixed, it serves",
    async () => {
      const webhook = await world.startWebhook({ pluginMode: "hang" });
      const started = performance.now();
      const denied = await webhook.review(fn);
      const message = expectDenied(world, webhook, denied, {
        code: 500,
        // The credspec read and the access review wait on the same plugin; the log names whichever the reply listed first.
        message:
          /(reading GMSACredentialSpec "webapp1"|reviewing whether service account .+ may use GMSACredentialSpec "webapp1"): exec plugin ".+": no credential before the deadline/,
        errors: ["ERR_CREDENTIALS"],
      });
      expect(webhook.logFor(denied.uid)?.["credentials"]).toContain(`exec plugin "${process.execPath}"`);
      expect(denied.ms).toBeGreaterThanOrEqual(BUDGET_MS - 50);
      const pid = await webhook.hungPluginPid();
      expect(isAlive(pid), "the plugin outlives the review").toBe(true);

      expect(await eventually(() => !isAlive(pid), EXEC_TIMEOUT_MS + 2000)).toBe(true);
      const killedAfter = Math.round(performance.now() - started);
      expect(killedAfter).toBeGreaterThanOrEqual(EXEC_TIMEOUT_MS);
      // The run ends once the kill lands; its outcome is counted then.
      expect(await eventually(async () => (await webhook.metrics())["execRuns_timeout"] === 1, 2000)).toBe(true);

      await webhook.setPluginMode("ok");
      const recovery = await expectRecovery(webhook, fn, 5000);
      world.report({
        fault: "plugin hangs",
        fn,
        outcome: 500,
        ms: denied.ms,
        message,
        recovery: `plugin killed ${killedAfter} ms after start; plugin fixed: ${recovery}`,
      });
    },
    EXEC_TIMEOUT_MS + 20_000,
  );
});
