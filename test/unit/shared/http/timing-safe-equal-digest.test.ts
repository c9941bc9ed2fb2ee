import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretMatcher, webCryptoSha256 } from "../../../../shared/http/timing-safe-equal.ts";

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
