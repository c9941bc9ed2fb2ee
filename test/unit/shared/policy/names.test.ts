import { describe, expect, it } from "vitest";
import { isCredSpecName } from "../../../../shared/policy/names.ts";

describe("isCredSpecName", () => {
  it.each(["webapp1", "a", "web-app.contoso", "0abc", "a".repeat(253), `${"a".repeat(63)}.${"b".repeat(63)}`])("accepts %j", (name) => {
    expect(isCredSpecName(name)).toBe(true);
  });

  it.each(["", "WebApp1", "-web", "web-", "web_app", "web app", ".web", "web..app", "a".repeat(254), "../secret", "web/app", "wéb"])(
    "refuses %j",
    (name) => {
      expect(isCredSpecName(name)).toBe(false);
    },
  );
});
