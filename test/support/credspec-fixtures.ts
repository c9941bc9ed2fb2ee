import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { formatKubeObjects, type KubeObject } from "../../cli/credspec/render.ts";

/** The marker at the end of the non-domain-joined fixture's PluginInput: it must never reach an error or warning. */
export const PLUGIN_INPUT_MARKER = "fake-gmsa-plugin-input-Xk9Qz2";

/** Reads a fixture under test/support/fixtures/credspec/ as bytes. */
export function readCredSpecFixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`./fixtures/credspec/${name}`, import.meta.url)));
}

/** A fresh parsed copy of a credspec fixture, safe to mutate. */
export function loadCredSpecFixture(name: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(readCredSpecFixtureBytes(name))) as Record<string, unknown>;
}

/** Marks a field to delete in {@link editJson}. */
export const REMOVE = Symbol("remove");

/**
 * Returns a copy of `doc` with the value at `path` (`A.B[0].C`, the form problems use) replaced, or deleted when
 * `value` is {@link REMOVE}. Containers on the way must exist.
 */
export function editJson(doc: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(doc);
  const keys = path
    .split(".")
    .flatMap((part) => part.split(/[[\]]/).filter((key) => key !== ""))
    .map((key) => (/^\d+$/.test(key) ? Number(key) : key));
  const last = keys.pop()!;
  let parent = copy as Record<string | number, unknown>;
  for (const key of keys) parent = parent[key] as Record<string | number, unknown>;
  if (value === REMOVE) {
    if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
    else delete parent[last];
  } else {
    parent[last] = value;
  }
  return copy;
}

/** Prints objects as the CLI does and parses the YAML back as kubectl would (YAML 1.1), failing on any YAML error. */
export function printAndParse(objects: readonly KubeObject[]): unknown[] {
  return parseYamlDocuments(formatKubeObjects(objects, "yaml"));
}

/** Parses multi-document YAML (YAML 1.1, as kubectl reads it) into plain values; throws on any YAML error. */
export function parseYamlDocuments(text: string): unknown[] {
  const docs = parseAllDocuments(text, { version: "1.1" });
  for (const doc of docs) if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join("\n"));
  return docs.map((doc) => doc.toJS() as unknown);
}
