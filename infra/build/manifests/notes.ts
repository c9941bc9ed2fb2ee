/**
 * The "why" comments of the generated manifests, kept beside the values they explain but outside the objects (a
 * side table keyed by object), so the objects stay plain Kubernetes objects that code compares and serializes.
 * render.ts reads them back when it writes the YAML.
 */

/** Comment text per key of an object or index of an array; lines are joined with `\n`, without the `# `. */
type Notes<T> = T extends readonly unknown[] ? Record<number, string> : Partial<Record<keyof T & string, string>>;

const notes = new WeakMap<object, Readonly<Record<string | number, string>>>();
const anchors = new WeakMap<object, string>();

/**
 * Registers comments written above some keys (or items) of `object` when it is rendered, and returns `object`.
 * A later call for the same object adds to, or replaces, earlier comments.
 */
export function commented<T extends object>(object: T, comments: Notes<T>): T {
  notes.set(object, { ...notes.get(object), ...(comments as Record<string | number, string>) });
  return object;
}

/** The comments registered for `object`, by key or index. */
export function commentsOf(object: object): Readonly<Record<string | number, string>> | undefined {
  return notes.get(object);
}

/**
 * Marks `object` to be written once with YAML anchor `name` and as an alias wherever it appears again in the same
 * document (the CRD's one schema for both versions); returns `object`.
 */
export function anchored<T extends object>(object: T, name: string): T {
  anchors.set(object, name);
  return object;
}

/** The anchor name {@link anchored} gave `object`. */
export function anchorOf(object: object): string | undefined {
  return anchors.get(object);
}
