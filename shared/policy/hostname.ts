const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const LETTERS_AND_DIGITS = `${LETTERS}0123456789`;

/** NetBIOS names are at most 15 characters. */
export const HOSTNAME_LENGTH = 15;

/**
 * A random, lowercase, NetBIOS-safe hostname from `bytes` (at least 15 of them): a letter, then letters and
 * digits, so it is never all digits and has no hyphen at either end. The caller supplies the randomness.
 */
export function createRandomHostname(bytes: Uint8Array): string {
  if (bytes.length < HOSTNAME_LENGTH) throw new RangeError(`need ${HOSTNAME_LENGTH} random bytes, got ${bytes.length}`);
  let name = LETTERS[(bytes[0] ?? 0) % LETTERS.length] ?? "a";
  for (let i = 1; i < HOSTNAME_LENGTH; i++) name += LETTERS_AND_DIGITS[(bytes[i] ?? 0) % LETTERS_AND_DIGITS.length] ?? "a";
  return name;
}
