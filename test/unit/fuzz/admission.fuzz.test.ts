import fc from "fast-check";
import fastJsonPatch from "fast-json-patch";
import { afterAll, describe, expect, it } from "vitest";
import { byteNoise, encode, mutation, review } from "./arbitraries.ts";
import { checkReply, decodeSent } from "./contract.ts";
import { createFuzzApp, expectStillServing, fuzzParameters, MAX_CREDSPEC_NAMES, SCALE } from "./harness.ts";
import { mustRefuse } from "./oracle.ts";

const fuzz = createFuzzApp();
const timeout = 120_000 * SCALE;

/** Most inputs unmutated (deep in the GMSA rules), some with mutations of the value or the bytes. */
const input = fc.record({
  review,
  mutations: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
  noise: fc.oneof({ weight: 9, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: byteNoise }),
});

const tally = { allowed: 0, denied: 0, http: 0 };

afterAll(() => {
  console.log(`fuzz: ${fuzz.inputs()} inputs to expand and authorize (allowed ${tally.allowed}, denied ${tally.denied}, HTTP errors ${tally.http})`);
});

describe("fuzz: admission reviews", () => {
  it("authorize never allows a review it must refuse, and answers every input by the contract", async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ review: value, mutations, noise }) => {
        const body = encode(value, mutations, noise);
        const checked = await checkReply("authorize", body, await fuzz.review("authorize", body));
        if (checked.reply === undefined) tally.http++;
        else if (!checked.reply.response.allowed) tally.denied++;
        else {
          tally.allowed++;
          const reason = mustRefuse(decodeSent(body), { maxCredSpecNames: MAX_CREDSPEC_NAMES });
          if (reason !== undefined) throw new Error(`authorize allowed a review it must refuse: ${reason}`);
        }
        fuzz.checkLogs();
      }),
      fuzzParameters(9000),
    );
    await expectStillServing(fuzz);
  }, timeout);

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
  }, timeout);

  it("an expanded pod passes authorize exactly when the oracle allows it", async () => {
    await fc.assert(
      fc.asyncProperty(review, async (value) => {
        const body = encode(value, []);
        const expanded = await checkReply("expand", body, await fuzz.review("expand", body));
        const patch = expanded.reply?.response.patch;
        if (patch === undefined || expanded.review === undefined) return;
        const ops = JSON.parse(Buffer.from(patch, "base64").toString("utf8")) as fastJsonPatch.Operation[];
        const object = fastJsonPatch.applyPatch(structuredClone(expanded.review.request.object), ops).newDocument;
        const next = structuredClone(value);
        (next.request as Record<string, unknown>).object = object;
        const nextBody = encode(next, []);
        const checked = await checkReply("authorize", nextBody, await fuzz.review("authorize", nextBody));
        const reason = mustRefuse(decodeSent(nextBody), { maxCredSpecNames: MAX_CREDSPEC_NAMES });
        if (checked.reply?.response.allowed === true) expect(reason).toBeUndefined();
        if (reason === undefined) expect(checked.reply?.response, "a pod the oracle accepts after expand").toMatchObject({ allowed: true });
        fuzz.checkLogs();
      }),
      fuzzParameters(1500),
    );
    await expectStillServing(fuzz);
  }, timeout);
});
