import { describe, expect, it } from "vitest";
import { isDns1123Label, isDns1123Subdomain } from "../../../../shared/policy/checks.ts";

describe("isDns1123Subdomain", () => {
  it.each(["webapp1", "a", "web-app.contoso", "0abc", "a".repeat(253), `${"a".repeat(63)}.${"b".repeat(63)}`])(
    "accepts %j",
    (name) => {
      expect(isDns1123Subdomain(name)).toBe(true);
    },
  );

  it.each([
    "",
    "WebApp1",
    "-web",
    "web-",
    "web_app",
    "web app",
    ".web",
    "web..app",
    "a".repeat(254),
    "../secret",
    "web/app",
    "wéb",
  ])("refuses %j", (name) => {
    expect(isDns1123Subdomain(name)).toBe(false);
  });
});

describe("DNS-1123 names", () => {
  it.each(["a", "webapp01", "a-b.c-d", "0a", "a".repeat(253)])("accepts the subdomain %j", (name) =>
    expect(isDns1123Subdomain(name)).toBe(true),
  );
  it.each(["", "A", "-a", "a-", "a..b", "a_b", "a/b", "%2e%2e", "a".repeat(254)])("refuses the subdomain %j", (name) =>
    expect(isDns1123Subdomain(name)).toBe(false),
  );
  it("limits labels to 63 characters without dots", () => {
    expect(isDns1123Label("a".repeat(63))).toBe(true);
    expect(isDns1123Label("a".repeat(64))).toBe(false);
    expect(isDns1123Label("a.b")).toBe(false);
  });
});
