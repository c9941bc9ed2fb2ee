import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRandomHostname, HOSTNAME_LENGTH } from "../../../../shared/policy/expand.ts";

describe("createRandomHostname", () => {
  it("is 15 lowercase letters and digits, a letter first, never all digits, for any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 15, maxLength: 64 }), (bytes) => {
        const name = createRandomHostname(bytes);
        expect(name).toHaveLength(HOSTNAME_LENGTH);
        expect(name).toMatch(/^[a-z][a-z0-9]{14}$/);
        expect(name).not.toMatch(/^[0-9]+$/);
      }),
      { numRuns: 2000 },
    );
  });

  it("is derived from the bytes: the same bytes give the same name", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 15, maxLength: 15 }), (bytes) => {
        expect(createRandomHostname(bytes)).toBe(createRandomHostname(Uint8Array.from(bytes)));
      }),
    );
    expect(createRandomHostname(new Uint8Array(15))).toBe("aaaaaaaaaaaaaaa");
    expect(createRandomHostname(Uint8Array.from({ length: 15 }, (_, i) => i))).toBe("abcdefghijklmno");
    expect(createRandomHostname(Uint8Array.from({ length: 15 }, () => 35))).toBe("j99999999999999");
  });

  it("reaches every letter first and every letter and digit after", () => {
    const first = new Set<string>();
    const rest = new Set<string>();
    for (let b = 0; b < 256; b++) {
      const name = createRandomHostname(new Uint8Array(15).fill(b));
      first.add(name[0]!);
      rest.add(name[1]!);
    }
    expect(first.size).toBe(26);
    expect(rest.size).toBe(36);
  });
});
