/**
 * Start-up fills pages of the V8 heap that a waiting server never uses again: the bundle's module code run once, the
 * kubeconfig's YAML parser, configuration checks, the young generation grown while all of that survived its
 * scavenges. V8 gives such pages back only in a memory-reducing collection, and its memory reducer starts only after a
 * full collection, which a small heap does not have until load: without one, idle RSS keeps start-up's high-water
 * mark for good.
 *
 * With `--expose-gc` (NODE_SERVER_OPTIONS), the entry takes V8's `gc()` from the global object, so no other code can
 * call it, and runs one last-resort collection once the server listens and before it accepts a connection: two
 * mark-compacts, about 12 ms of start-up, and 2.4 MiB less RSS at idle (test/bench/RESULTS.md, section G). It also
 * drops the bytecode of functions that ran only at start-up; a function needed later is compiled again on its first
 * call.
 */

/** V8's `gc()` as `--expose-gc` installs it. */
export type GcFunction = NonNullable<typeof globalThis.gc>;

/**
 * Takes `gc` from `scope` (the global object) and leaves `undefined` in its place: V8 installs it writable but not
 * configurable, so it cannot be deleted. Undefined without `--expose-gc`.
 */
export function takeGc(scope: { gc?: GcFunction | undefined } = globalThis): GcFunction | undefined {
  const gc = scope.gc;
  if (gc !== undefined) scope.gc = undefined;
  return gc;
}

/** One synchronous, memory-reducing full collection; nothing without `gc`. */
export function releaseStartupMemory(gc: GcFunction | undefined): void {
  gc?.({ type: "major", execution: "sync", flavor: "last-resort" });
}
