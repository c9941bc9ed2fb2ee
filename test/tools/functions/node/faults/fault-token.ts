/**
 * Tokens the fault-injecting API server issues: `fault-<run>.<HMAC-SHA256(secret, "fault-<run>")>`. The exec plugin
 * fixture mints them from the secret the server wrote to a file, so the server accepts only tokens it issued.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const TOKEN = /^fault-(\d+)\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, subject: string): string {
  return createHmac("sha256", secret).update(subject).digest("base64url");
}

/** The token of plugin run `run` (1-based). */
export function mintFaultToken(secret: string, run: number): string {
  return `fault-${run}.${mac(secret, `fault-${run}`)}`;
}

/** The run that minted `token`, or undefined when `secret` did not sign it. */
export function verifyFaultToken(secret: string, token: string): number | undefined {
  const match = TOKEN.exec(token);
  if (match === null) return undefined;
  const expected = Buffer.from(mac(secret, `fault-${match[1]}`));
  const given = Buffer.from(match[2] ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected) ? Number(match[1]) : undefined;
}
