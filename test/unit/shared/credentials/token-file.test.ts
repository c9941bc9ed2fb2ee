import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createTokenFileSource } from "../../../../shared/credentials/token-file.ts";

/** A source of the token file at `path` whose contents `readText` reads. */
const tokenFile = (path: string, readText: () => Promise<string>, clock: { now?: () => number } = {}) =>
  createTokenFileSource({ path, readText, shareInFlight: true, ...clock });

describe("createTokenFileSource", () => {
  it("re-reads the file every minute by default, so a rotated token is picked up", async () => {
    let clock = Date.parse("2030-01-01T00:00:00Z");
    let content = "first\n";
    let reads = 0;
    const read = () => Promise.resolve((reads++, content));
    const source = tokenFile("/var/run/secrets/kubernetes.io/serviceaccount/token", read, { now: () => clock });
    expect(await source.getCredential()).toMatchObject({ token: "first" });
    content = "second";
    clock += 50_000;
    expect(await source.getCredential()).toMatchObject({ token: "first" });
    clock += 10_000;
    expect(await source.getCredential()).toMatchObject({ token: "second" });
    expect(reads).toBe(2);
  });

  it("re-reads before a projected token's own exp when that comes first", async () => {
    const clock = Date.parse("2030-01-01T00:00:00Z");
    const key = new TextEncoder().encode("0123456789abcdef0123456789abcdef");
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(clock / 1000 + 30)
      .sign(key);
    const source = tokenFile("t", () => Promise.resolve(jwt), { now: () => clock });
    expect(await source.getCredential()).toEqual({
      token: jwt,
      expirationTimestamp: new Date(clock + 30_000).toISOString(),
    });
  });

  it("fails with ERR_CREDENTIALS naming the file when it cannot be read or is empty", async () => {
    await expect(tokenFile("/nope", () => Promise.reject(new Error("ENOENT"))).getCredential()).rejects.toMatchObject({
      code: "ERR_CREDENTIALS",
      message: 'token file "/nope" could not be read',
    });
    await expect(tokenFile("/empty", () => Promise.resolve(" \n")).getCredential()).rejects.toThrow(
      'token file "/empty" is empty',
    );
  });
});
