import { describe, expect, it } from "vitest";
import { deriveCredSpecName, isRbacName, parseServiceAccountRef } from "../../../../shared/credspec/names.ts";

describe("deriveCredSpecName", () => {
  it.each([
    ["WebApp1", "webapp1"],
    ["web_app 1", "web-app-1"],
    ["-WebApp1$", "webapp1"],
    ["svc.WebApp..1", "svc.webapp.1"],
  ])("turns the account name %j into the DNS-1123 subdomain %j", (account, name) => {
    expect(deriveCredSpecName(account)).toBe(name);
  });

  it.each(["", "___", "..", "x".repeat(254)])("leaves no name for %j", (account) => {
    expect(deriveCredSpecName(account)).toBeUndefined();
  });
});

describe("parseServiceAccountRef", () => {
  it("splits namespace:name", () => {
    expect(parseServiceAccountRef("web:webapp1")).toEqual({ namespace: "web", name: "webapp1" });
    expect(parseServiceAccountRef("default:app.v2")).toEqual({ namespace: "default", name: "app.v2" });
  });

  it.each(["webapp1", ":webapp1", "web:", "web:a:b", "Web:webapp1", "web:WebApp1", "web.ns:webapp1", `${"n".repeat(64)}:a`])(
    "rejects %j",
    (text) => expect(parseServiceAccountRef(text)).toBeUndefined(),
  );
});

describe("isRbacName", () => {
  it.each(["webapp1-use", "gmsa:webapp1", "Use_WebApp1"])("accepts %j", (name) => expect(isRbacName(name)).toBe(true));
  it.each(["", ".", "..", "a/b", "a%2f"])("rejects %j", (name) => expect(isRbacName(name)).toBe(false));
});
