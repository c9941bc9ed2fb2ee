/**
 * The settings the default fuzz app runs without: REVIEW_REQUESTING_USER (`ephemeral`, `always`), judged by the oracle
 * for that mode, and ENFORCEMENT=warn, judged against the same review sent to an app in deny mode.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { authorizableReview, byteNoise, encode, ephemeralChangeReview, mutation, review } from "./arbitraries.ts";
import type { AdmissionReviewResponse } from "../../../shared/admission/review.ts";
import { checkReply, decodeSent } from "./contract.ts";
import {
  createFuzzApp,
  expectOracleAllows,
  expectReached,
  expectStillServing,
  fuzzParameters,
  oracleReason,
  FUZZ_TIMEOUT_MS,
} from "./harness.ts";
import { holdsGmsaSettings } from "./oracle.ts";

const apps = {
  ephemeral: createFuzzApp({ requestingUser: "ephemeral" }),
  always: createFuzzApp({ requestingUser: "always" }),
  deny: createFuzzApp(),
  warn: createFuzzApp({ enforcement: "warn" }),
};

const input = fc.record({
  review: fc.oneof(
    { weight: 2, arbitrary: review },
    { weight: 3, arbitrary: authorizableReview },
    { weight: 1, arbitrary: ephemeralChangeReview },
  ),
  mutations: fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 2 }) },
  ),
  noise: fc.oneof({ weight: 19, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: byteNoise }),
});

/** Per mode: cases, and allowed reviews of pods holding GMSA settings that the oracle judged (see admission.fuzz.test.ts). */
const reach = {
  ephemeral: { cases: 0, reached: 0 },
  always: { cases: 0, reached: 0 },
  warn: { cases: 0, wouldDeny: 0 },
};
const FLOOR = 0.1;

afterAll(() => {
  const { ephemeral, always, warn } = reach;
  console.log(
    `fuzz: requesting user: oracle judged ${ephemeral.reached} of ${ephemeral.cases} (ephemeral) and ${always.reached} of ${always.cases} (always) allowed with GMSA settings; warn allowed ${warn.wouldDeny} of ${warn.cases} that deny refused`,
  );
});

function wouldDenyWarnings(reply: AdmissionReviewResponse, code: number): string[] {
  return (reply.response.warnings ?? []).filter((w) => /would deny/i.test(w) && w.includes(String(code)));
}

describe("fuzz: settings", { timeout: FUZZ_TIMEOUT_MS }, () => {
  it("with REVIEW_REQUESTING_USER=ephemeral or always, authorize never allows what the requester may not use", async () => {
    await fc.assert(
      fc.asyncProperty(
        input,
        fc.constantFrom("ephemeral" as const, "always" as const),
        async ({ review: value, mutations, noise }, mode) => {
          const fuzz = apps[mode];
          const body = encode(value, mutations, noise);
          const checked = await checkReply("authorize", body, await fuzz.review("authorize", body));
          reach[mode].cases++;
          if (checked.reply?.response.allowed === true) {
            if (holdsGmsaSettings(decodeSent(body))) reach[mode].reached++;
            expectOracleAllows(body, `authorize (REVIEW_REQUESTING_USER=${mode})`, mode);
          }
          fuzz.checkLogs();
        },
      ),
      fuzzParameters(2000),
    );
    for (const mode of ["ephemeral", "always"] as const) {
      expectReached(reach[mode], FLOOR, mode);
      await expectStillServing(apps[mode]);
    }
  });

  it("with ENFORCEMENT=warn, authorize allows with a warning whatever deny refuses, never blocks, and expand is unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ review: value, mutations, noise }) => {
        const body = encode(value, mutations, noise);
        const denied = await checkReply("authorize", body, await apps.deny.review("authorize", body));
        const warned = await checkReply("authorize", body, await apps.warn.review("authorize", body));
        reach.warn.cases++;
        expect(warned.http, "the HTTP status").toBe(denied.http);
        if (warned.reply !== undefined && denied.reply !== undefined) {
          expect(warned.reply.response.allowed, "warn mode never blocks").toBe(true);
          const reason = oracleReason(body);
          const status = denied.reply.response.status;
          if (!denied.reply.response.allowed && status !== undefined) {
            reach.warn.wouldDeny++;
            expect(
              wouldDenyWarnings(warned.reply, status.code),
              `a warning that deny would refuse (${status.code})`,
            ).toHaveLength(1);
            // The audit log says what deny mode would have done (only pods get annotations; other refusals are pods').
            if (denied.reply.response.auditAnnotations !== undefined) {
              const audit = warned.reply.response.auditAnnotations;
              expect(audit?.decision, "the audit annotation decision").toBe("would-deny");
              expect(audit?.["would-deny"], "the would-deny audit annotation").toContain(String(status.code));
            }
          } else {
            expectOracleAllows(body, "authorize in deny mode");
            expect(warned.reply.response.warnings ?? [], "the same warnings as deny mode").toEqual(
              denied.reply.response.warnings ?? [],
            );
            expect(warned.reply.response.auditAnnotations, "the same audit annotations as deny mode").toEqual(
              denied.reply.response.auditAnnotations,
            );
          }
          if (reason !== undefined)
            expect(wouldDenyWarnings(warned.reply, status?.code ?? 0), `the oracle refuses: ${reason}`).toHaveLength(1);
        }
        // Expand ignores ENFORCEMENT: both apps answer alike (their random bytes run in step).
        const expandDeny = await apps.deny.review("expand", body);
        const expandWarn = await apps.warn.review("expand", body);
        expect(await expandWarn.text(), "expand's answer in warn mode").toBe(await expandDeny.text());
        apps.deny.checkLogs();
        apps.warn.checkLogs();
      }),
      fuzzParameters(1000),
    );
    await expectStillServing(apps.warn);
  });
});
