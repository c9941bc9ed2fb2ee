/**
 * A credspec's JSON text, as expand inlines it and authorize's byte-equal fast path compares it, made once per
 * credspec object: the client's cache hands every review of one name the same object, so a warm review serializes
 * nothing. Keyed weakly by that object: an evicted credspec takes its text with it.
 */
const TEXTS = new WeakMap<object, CredSpecJson>();

export interface CredSpecJson {
  text: string;
  /** UTF-8 length of `text`. */
  bytes: number;
}

/** `JSON.stringify(credspec)` and its UTF-8 length (the caller must not mutate the credspec afterwards). */
export function credspecJson(credspec: unknown): CredSpecJson {
  if (typeof credspec !== "object" || credspec === null) return serialize(credspec);
  let json = TEXTS.get(credspec);
  if (json === undefined) {
    json = serialize(credspec);
    TEXTS.set(credspec, json);
  }
  return json;
}

function serialize(credspec: unknown): CredSpecJson {
  const text = JSON.stringify(credspec);
  return { text, bytes: new TextEncoder().encode(text).length };
}
