import { stringify } from "yaml";
import type { KubeObject } from "./render.ts";

/** Output formats of {@link formatKubeObjects}. */
export const OUTPUT_FORMATS = ["yaml", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Serializes objects for `kubectl apply -f -`: YAML as one document per object separated by `---`, or JSON as a
 * `v1` `List` (kubectl's form for several objects in one JSON file). Ends with a newline.
 */
export function formatKubeObjects(objects: readonly KubeObject[], format: OutputFormat): string {
  if (format === "json") return `${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2)}\n`;
  // YAML 1.1 quoting: kubectl reads YAML 1.1, where plain `yes`, `on` or `1:20` are not strings, while the yaml
  // package defaults to 1.2 and would leave them unquoted. Quoting them keeps every credspec string a string.
  return objects.map((object) => stringify(object, { version: "1.1" })).join("---\n");
}
