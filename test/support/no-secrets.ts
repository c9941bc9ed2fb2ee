/** Assertions that failures name their cause and never carry a secret. */
import { expect } from "vitest";
import type { AdmissionError } from "../../shared/errors.ts";

/** Every text an error could reach a log with: message, stack, own fields and its cause's. */
function errorTexts(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return [
    String(error),
    (error as Error | undefined)?.stack ?? "",
    JSON.stringify(error),
    cause === undefined ? "" : errorTexts(cause),
  ].join("\n");
}

/** Fails if `text` holds any of `secrets`. */
export function expectNoSecrets(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text, "a secret leaked").not.toContain(secret);
}

/**
 * Every `length`-character piece of `secret`, its PEM armour and line breaks dropped: what an echo of part of a
 * secret (a truncated value, one line of a key) would still show.
 */
export function secretFragments(secret: string, length = 8): string[] {
  const body = secret
    .split("\n")
    .filter((line) => !line.startsWith("-----"))
    .join("")
    .replace(/\s+/g, "");
  if (body.length <= length) return [body];
  return Array.from({ length: body.length - length + 1 }, (_, i) => body.slice(i, i + length));
}

/** Fails if `text` holds any of `secrets` or any {@link secretFragments} of one. */
export function expectNoSecretFragments(text: string, secrets: readonly string[], length = 8): void {
  for (const secret of secrets) {
    const leaked = secretFragments(secret, length).filter((fragment) => text.includes(fragment));
    expect(leaked, "a piece of a secret leaked").toEqual([]);
  }
}

/** What a fetch Response (the global one, undici's or Miniflare's) gives: headers and body. */
interface AnyResponse {
  headers: { forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
}

/** The headers and body of `response` as one text, everything a caller receives. */
export async function responseText(response: AnyResponse): Promise<string> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => headers.push(`${name}: ${value}`));
  return [...headers, "", await response.text()].join("\n");
}

/** The Error `promise` rejects with (an AdmissionError unless `T` says otherwise); fails the test if it resolves. */
export async function rejectionOf<T extends Error = AdmissionError>(promise: Promise<unknown>): Promise<T> {
  const error = await promise.then(
    () => expect.unreachable("resolved"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as T;
}

/** Awaits a rejection with ERR_CREDENTIALS whose message matches `message` and that holds none of `secrets`. */
export async function expectRefusal(
  promise: Promise<unknown>,
  message: RegExp,
  secrets: readonly string[],
): Promise<AdmissionError> {
  const error = await rejectionOf(promise);
  expect(error).toMatchObject({ code: "ERR_CREDENTIALS" });
  expect(error.message).toMatch(message);
  expectNoSecrets(errorTexts(error), secrets);
  return error;
}
