/** Assertions that failures name their cause and never carry a secret. */
import { expect } from "vitest";
import { CredentialsError } from "../../shared/errors.ts";

/** Every text an error could reach a log with: message, stack, own fields and its cause's. */
function errorTexts(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return [String(error), (error as Error | undefined)?.stack ?? "", JSON.stringify(error), cause === undefined ? "" : errorTexts(cause)].join("\n");
}

/** Fails if `text` holds any of `secrets`. */
export function expectNoSecrets(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text, "a secret leaked").not.toContain(secret);
}

/** Awaits a rejection with a CredentialsError whose message matches `message` and that holds none of `secrets`. */
export async function expectRefusal(promise: Promise<unknown>, message: RegExp, secrets: readonly string[]): Promise<CredentialsError> {
  const error = await promise.then(
    () => expect.unreachable("resolved"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CredentialsError);
  expect((error as Error).message).toMatch(message);
  expectNoSecrets(errorTexts(error), secrets);
  return error as CredentialsError;
}
