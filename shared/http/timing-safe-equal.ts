/**
 * Constant-time comparison of two byte arrays: for equal lengths, the time taken does not depend on where
 * (or whether) they differ. Arrays of different lengths are unequal at once, so compare fixed-length digests
 * (see {@link createSecretMatcher}) when the length itself is secret.
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** SHA-256 of a string's UTF-8 bytes; synchronous where the runtime can do it so (node:crypto), else WebCrypto. */
export type Sha256 = (text: string) => Uint8Array | Promise<Uint8Array>;

/**
 * Checks a presented credential against one or more secrets without telling, by timing, which one matched, how
 * long they are or how much of one was right: SHA-256 digests are compared, every candidate in full (as Hono's
 * bearer-auth does with `timingSafeEqual` in `src/utils/buffer.ts`).
 * @throws TypeError when `secrets` is empty or holds an empty string.
 */
export function createSecretMatcher(secrets: readonly string[], digest: Sha256 = webCryptoSha256): (presented: string) => Promise<boolean> {
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) throw new TypeError("need at least one non-empty secret");
  // Only settled digests are kept: on Workers one request must not await a promise another request created.
  let expected: Uint8Array[] | undefined;
  return async (presented) => {
    expected ??= await Promise.all(secrets.map(async (secret) => digest(secret)));
    const actual = await digest(presented);
    let found = false;
    for (const candidate of expected) found = timingSafeEqual(actual, candidate) || found;
    return found;
  };
}

/** The portable digest. On Node it is an async job on the thread pool (about 130 µs per review measured here). */
export async function webCryptoSha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}
