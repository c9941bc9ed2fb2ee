import { describe, expect, it } from "vitest";
import { isDns1123Label, isDns1123Subdomain } from "../../../../shared/policy/checks.ts";

describe("isDns1123Subdomain", () => {
  it.each(["webapp1", "a", "web-app.contoso", "0abc", "a".repeat(253), `${"a".repeat(63)}.${"b".repeat(63)}`])(
    "accepts %j",
    (name) => {
      expect(isDns1123Subdomain(name)).toBe(true);
    },
  );

  it.each(["", "web-", "web app", ".web", "web..app", "../secret", "web/app", "%2e%2e", "wéb"])(
    "refuses %j",
    (name) => {
      expect(isDns1123Subdomain(name)).toBe(false);
    },
  );
});

describe("isDns1123Label", () => {
  it("limits labels to 63 characters without dots", () => {
    expect(isDns1123Label("a".repeat(63))).toBe(true);
    expect(isDns1123Label("a".repeat(64))).toBe(false);
    expect(isDns1123Label("a.b")).toBe(false);
  });
});
