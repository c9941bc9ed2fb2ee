import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { windowsOptions } from "./arbitraries.ts";
import { checkReply } from "./contract.ts";
import { createFuzzApp, expectOracleAllows, expectStillServing, fuzzParameters, FUZZ_TIMEOUT_MS } from "./harness.ts";
import { NAMESPACES, SERVICE_ACCOUNTS } from "./world.ts";
import { buildReview } from "../../support/reviews.ts";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";

const fuzz = createFuzzApp();

afterAll(() => {
  console.log(
    `fuzz: ${fuzz.inputs()} large inputs (thousands of containers, huge strings, deep nesting, over the limit)`,
  );
});

async function sendBoth(text: string): Promise<void> {
  const body = new TextEncoder().encode(text);
  for (const fn of FUNCTION_NAMES) {
    const checked = await checkReply(fn, body, await fuzz.review(fn, body));
    if (fn === "authorize" && checked.reply?.response.allowed === true) {
      expectOracleAllows(body, "authorize");
    }
  }
  fuzz.checkLogs();
}

const manyContainers = fc.record({
  count: fc.integer({ min: 1000, max: 5000 }),
  gmsaEvery: fc.integer({ min: 1, max: 50 }),
  options: fc.array(windowsOptions, { minLength: 1, maxLength: 4 }),
  annotated: fc.integer({ min: 0, max: 3000 }),
  duplicateAt: fc.option(fc.nat(), { nil: undefined }),
  namespace: fc.constantFrom(...NAMESPACES),
  serviceAccountName: fc.constantFrom(...SERVICE_ACCOUNTS),
});

describe("fuzz: large reviews", { timeout: FUZZ_TIMEOUT_MS }, () => {
  it("answers pods with thousands of containers and annotations by the contract", async () => {
    await fc.assert(
      fc.asyncProperty(manyContainers, async (p) => {
        const containers = Array.from({ length: p.count }, (_, i) => ({
          name: p.duplicateAt !== undefined && i === p.count - 1 ? `c${p.duplicateAt % p.count}` : `c${i}`,
          ...(i % p.gmsaEvery === 0 ? { securityContext: { windowsOptions: p.options[i % p.options.length] } } : {}),
        }));
        const annotations: Record<string, string> = {};
        for (let i = 0; i < p.annotated; i++) {
          annotations[`c${(i * 7) % p.count}.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name`] =
            i % 3 === 0 ? "webapp1" : "shared";
        }
        const pod = {
          metadata: { name: "many", annotations },
          spec: { serviceAccountName: p.serviceAccountName, containers },
        };
        await sendBoth(JSON.stringify(buildReview(pod, { uid: "large-1", namespace: p.namespace })));
      }),
      fuzzParameters(16),
    );
    await expectStillServing(fuzz);
  });

  it("answers huge strings anywhere in the review by the contract", async () => {
    const where = fc.constantFrom("uid", "name", "contents", "annotation", "container", "namespace", "unknown-field");
    await fc.assert(
      fc.asyncProperty(where, fc.integer({ min: 100_000, max: 3_000_000 }), async (place, length) => {
        const huge = "x".repeat(length);
        const options: Record<string, string> = { gmsaCredentialSpecName: place === "name" ? huge : "webapp1" };
        if (place === "contents") options.gmsaCredentialSpec = huge;
        const pod = {
          metadata: {
            name: "huge",
            annotations: place === "annotation" ? { "pod.alpha.windows.kubernetes.io/gmsa-credential-spec": huge } : {},
          },
          spec: {
            serviceAccountName: "web",
            containers: [{ name: place === "container" ? huge : "web", securityContext: { windowsOptions: options } }],
            ...(place === "unknown-field" ? { extra: huge } : {}),
          },
        };
        const review = buildReview(pod, { uid: "large-1", namespace: place === "namespace" ? huge : "team-a" });
        if (place === "uid") (review.request as Record<string, unknown>).uid = huge;
        await sendBoth(JSON.stringify(review));
      }),
      fuzzParameters(14),
    );
    await expectStillServing(fuzz);
  });

  it("answers deeply nested JSON by the contract, without a crash", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 10_000, max: 1_000_000 }), fc.boolean(), async (depth, inPod) => {
        // The nesting in the pod, or beside the request (the pod then holds none: only the first marker is replaced).
        const pod = { spec: { containers: [{ name: "web" }], ...(inPod ? { extra: "@@deep@@" } : {}) } };
        const review = buildReview(pod, { uid: "large-1", namespace: "team-a" });
        const text = JSON.stringify(inPod ? review : { ...review, extra: "@@deep@@" });
        const deep =
          depth % 2 === 0
            ? `${"[".repeat(depth)}${"]".repeat(depth)}`
            : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
        await sendBoth(text.replace('"@@deep@@"', deep));
      }),
      fuzzParameters(8),
    );
    await expectStillServing(fuzz);
  });
});
