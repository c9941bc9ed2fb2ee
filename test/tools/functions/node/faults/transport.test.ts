/**
 * Fault matrix (MATRIX.md), transport faults (issue 5, rows 1-3): the API server refuses connections, resets them
 * mid-answer, or answers too slowly.
 */
import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES } from "../../../../../shared/config/index.ts";
import type { Fault } from "../../../../support/kube-server.ts";
import { BUDGET_MS, useFaultWorld } from "./harness.ts";

const world = useFaultWorld();
const NO_ANSWER = /reading GMSACredentialSpec "webapp1": no answer from the API server within the deadline/;

describe.each(FUNCTION_NAMES)("%s against an unreachable or slow API server", (fn) => {
  const lsar = fn === "authorize" ? 1 : 0;
  it.each<{ fault: string; inject: Fault | "refused"; message: RegExp; credspec?: number; slow?: true }>([
    { fault: "connection refused", inject: "refused", message: /API server unreachable \(ECONNREFUSED\)/ },
    {
      fault: "reset mid-response",
      inject: { kind: "reset" },
      message: /reading GMSACredentialSpec "webapp1": API server unreachable \(ECONNRESET\)/,
      // The GET is retried once.
      credspec: 2,
    },
    {
      fault: "no answer (slow beyond the deadline)",
      inject: { kind: "hang" },
      message: NO_ANSWER,
      credspec: 1,
      slow: true,
    },
    { fault: "headers, then the body stalls halfway", inject: { kind: "stall-body" }, message: NO_ANSWER, credspec: 1 },
  ])("denies with 500 on $fault, and recovers once it clears", async ({ fault, inject, message, credspec, slow }) => {
    const errors = message === NO_ANSWER ? ["ERR_DEADLINE_EXCEEDED"] : ["ERR_KUBE_API"];
    const calls = await world.denialRow({ fn, fault, inject, expected: { code: 500, message, errors } });
    if (credspec !== undefined) expect([calls.credspec, calls.lsar]).toEqual([credspec, lsar]);
    if (slow) expect(calls.ms).toBeGreaterThanOrEqual(BUDGET_MS - 50);
  });
});
