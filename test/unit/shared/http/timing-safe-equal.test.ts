import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretMatcher, timingSafeEqual, webCryptoSha256 } from "../../../../shared/http/timing-safe-equal.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("timingSafeEqual", () => {
  it("is true for equal arrays, including empty ones", () => {
    expect(timingSafeEqual(bytes(1, 2, 3), bytes(1, 2, 3))).toBe(true);
    expect(timingSafeEqual(bytes(), bytes())).toBe(true);
  });

  it("is false when any single byte differs, at every position and in every bit", () => {
    const a = new Uint8Array(32).fill(0xa5);
    for (let i = 0; i < a.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const b = a.slice();
        b[i] = (b[i] ?? 0) ^ (1 << bit);
        expect(timingSafeEqual(a, b)).toBe(false);
      }
    }
  });

  it("is false for different lengths, even when one is a prefix of the other", () => {
    expect(timingSafeEqual(bytes(1, 2), bytes(1, 2, 3))).toBe(false);
    expect(timingSafeEqual(bytes(1, 2, 3), bytes(1, 2))).toBe(false);
  });
});

describe("createSecretMatcher", () => {
  it("matches any configured secret, exactly", async () => {
    const matches = createSecretMatcher(["alpha-secret", "beta-secret"]);
    expect(await matches("alpha-secret")).toBe(true);
    expect(await matches("beta-secret")).toBe(true);
    for (const wrong of ["", "alpha-secre", "alpha-secrett", "ALPHA-SECRET", "alpha-secret ", "gamma-secret"]) {
      expect(await matches(wrong)).toBe(false);
    }
  });

  it("compares non-ASCII text as UTF-8", async () => {
    const matches = createSecretMatcher(["grüße-secret"]);
    expect(await matches("grüße-secret")).toBe(true);
    expect(await matches("grusse-secret")).toBe(false);
  });

  it("refuses no secrets or an empty secret (TypeError)", () => {
    expect(() => createSecretMatcher([])).toThrow(TypeError);
    expect(() => createSecretMatcher(["a", ""])).toThrow(TypeError);
  });
});

describe("createSecretMatcher with an injected digest", () => {
  const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

  it("gives the same digests as WebCrypto, so either runtime accepts the same secrets", async () => {
    for (const text of ["", "token", "ünïcødé-tökén", "x".repeat(1000)]) {
      expect(Buffer.from(nodeSha256(text)).equals(Buffer.from(await webCryptoSha256(text)))).toBe(true);
    }
  });

  it("accepts only a configured secret through the synchronous digest", async () => {
    let calls = 0;
    const matches = createSecretMatcher(["first-secret-0123456789", "second-secret-0123456789"], (text) => {
      calls++;
      return nodeSha256(text);
    });
    expect(await matches("second-secret-0123456789")).toBe(true);
    expect(await matches("second-secret-012345678")).toBe(false);
    expect(await matches("")).toBe(false);
    // Two configured secrets digested once, then one digest per presented credential.
    expect(calls).toBe(2 + 3);
  });
});
