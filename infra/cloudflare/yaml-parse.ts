/**
 * The Workers build's stand-in for the `yaml` package (wrangler.toml `[alias] yaml`): `parse` only, with js-yaml's
 * loader. shared/kube/kubeconfig.ts parses the KUBECONFIG secret with `parse` from "yaml"; on Node that stays the
 * `yaml` package, in the Worker bundle it is js-yaml's loader (14 KiB minified and gzipped, against 31 KiB), which
 * keeps each Worker under the 100 KiB gzip budget (infra/cloudflare/README.md, Bundle size). Both read YAML 1.2 with
 * the core schema and refuse duplicate keys; test/unit/infra/yaml-parse.test.ts checks they agree on kubeconfigs.
 */
import { loadAll, YAMLException } from "js-yaml";

/**
 * Parses a single YAML document as `yaml`'s `parse` does: null for an empty input (no document).
 * @throws YAMLException on invalid YAML or on more than one document.
 */
export function parse(text: string): unknown {
  const documents = loadAll(text);
  if (documents.length > 1) throw new YAMLException("expected a single document, found several");
  return documents[0] ?? null;
}
