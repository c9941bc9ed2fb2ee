import fc from "fast-check";
import fastJsonPatch from "fast-json-patch";
import { afterAll, describe, expect, it } from "vitest";
import {
  authorizableReview,
  byteNoise,
  encode,
  ephemeralChangeReview,
  expandableReview,
  mutation,
  review,
} from "./arbitraries.ts";
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

const fuzz = createFuzzApp();

/** Most inputs unmutated (deep in the GMSA rules), some with mutations of the value or the bytes. */
function inputOf(reviews: typeof review) {
  return fc.record({
    review: reviews,
    mutations: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
    ),
    noise: fc.oneof({ weight: 9, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: byteNoise }),
  });
}

const input = inputOf(review);
/**
 * Half of authorize's reviews are ones an allowed service account sends, so many are allowed and judged; some of those
 * change an existing ephemeral container's GMSA through `pods/ephemeralcontainers`.
 */
const authorizeInput = inputOf(
  fc.oneof(
    { weight: 3, arbitrary: review },
    { weight: 4, arbitrary: authorizableReview },
    { weight: 1, arbitrary: ephemeralChangeReview },
  ),
);

const tally = { allowed: 0, denied: 0, http: 0 };

/**
 * Per property: cases run, and cases that reached its GMSA-level assertion: for authorize, an allowed review of a
 * pod holding GMSA settings, which the oracle then judges (an allowed DELETE, other kind or pod without GMSA proves
 * nothing); for the round trip, an expanded pod the oracle accepts, which authorize must then allow. The contract
 * is checked on every case; a generator drift that stops cases short of the rules would leave the property passing
 * vacuously, so each asserts a floor, set well below what a run reaches and well above what a drift leaves (the
 * closing log line prints both).
 */
const AUTHORIZE_FLOOR = 0.2;
const ROUND_TRIP_FLOOR = 0.5;
const reach = { authorize: { cases: 0, reached: 0 }, roundTrip: { cases: 0, reached: 0 } };

afterAll(() => {
  console.log(
    `fuzz: ${fuzz.inputs()} inputs to expand and authorize (allowed ${tally.allowed}, denied ${tally.denied}, HTTP errors ${tally.http})`,
  );
  console.log(
    `fuzz: oracle judged ${reach.authorize.reached} of ${reach.authorize.cases} authorize cases allowed with GMSA settings; authorize had to allow ${reach.roundTrip.reached} of ${reach.roundTrip.cases} expanded pods`,
  );
});

describe("fuzz: admission reviews", { timeout: FUZZ_TIMEOUT_MS }, () => {
  it("authorize never allows a review it must refuse, and answers every input by the contract", async () => {
    await fc.assert(
      fc.asyncProperty(authorizeInput, async ({ review: value, mutations, noise }) => {
        const body = encode(value, mutations, noise);
        const checked = await checkReply("authorize", body, await fuzz.review("authorize", body));
        reach.authorize.cases++;
        if (checked.reply === undefined) tally.http++;
        else if (!checked.reply.response.allowed) tally.denied++;
        else {
          tally.allowed++;
          if (holdsGmsaSettings(decodeSent(body))) reach.authorize.reached++;
          expectOracleAllows(body, "authorize");
        }
        fuzz.checkLogs();
      }),
      fuzzParameters(9000),
    );
    expectReached(reach.authorize, AUTHORIZE_FLOOR);
    await expectStillServing(fuzz);
  });

  it("expand answers every input by the contract, and its patches apply to the pod", async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ review: value, mutations, noise }) => {
        const body = encode(value, mutations, noise);
        const checked = await checkReply("expand", body, await fuzz.review("expand", body));
        if (checked.reply === undefined) tally.http++;
        else if (checked.reply.response.allowed) tally.allowed++;
        else tally.denied++;
        fuzz.checkLogs();
      }),
      fuzzParameters(6000),
    );
    await expectStillServing(fuzz);
  });

  it("an expanded pod passes authorize exactly when the oracle allows it", async () => {
    await fc.assert(
      fc.asyncProperty(expandableReview, async (value) => {
        const body = encode(value, []);
        const expanded = await checkReply("expand", body, await fuzz.review("expand", body));
        reach.roundTrip.cases++;
        const patch = expanded.reply?.response.patch;
        if (patch === undefined || expanded.review === undefined) return;
        const ops = JSON.parse(Buffer.from(patch, "base64").toString("utf8")) as fastJsonPatch.Operation[];
        const object = fastJsonPatch.applyPatch(structuredClone(expanded.review.request.object), ops).newDocument;
        const next = structuredClone(value);
        (next.request as Record<string, unknown>).object = object;
        const nextBody = encode(next, []);
        const checked = await checkReply("authorize", nextBody, await fuzz.review("authorize", nextBody));
        const reason = oracleReason(nextBody);
        if (checked.reply?.response.allowed === true) expect(reason).toBeUndefined();
        if (reason !== undefined) return;
        reach.roundTrip.reached++;
        expect(checked.reply?.response, "a pod the oracle accepts after expand").toMatchObject({ allowed: true });
        fuzz.checkLogs();
      }),
      fuzzParameters(1500),
    );
    expectReached(reach.roundTrip, ROUND_TRIP_FLOOR);
    await expectStillServing(fuzz);
  });
});
