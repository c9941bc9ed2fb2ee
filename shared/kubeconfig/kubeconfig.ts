/**
 * kubeconfig files as kubectl reads them, YAML or JSON, in Web APIs only (the Workers build gets the YAML from a
 * secret): parsed with `yaml` unless it is plain JSON, then checked and built by kubeconfig-document.ts. The Node-based
 * functions come here only for YAML outside block-yaml.ts's subset; the Worker, whose bundle holds the parser anyway,
 * always does.
 */
import { parse as parseYaml } from "yaml";
import { buildKubeconfig, parseJsonKubeconfig, type KubeconfigResult, type ParseKubeconfigOptions } from "./kubeconfig-document.ts";

export { mergeKubeconfigs } from "./kubeconfig-document.ts";
export type { Kubeconfig, KubeconfigResult, ParseKubeconfigOptions, RawCluster, RawContext, RawUser } from "./kubeconfig-document.ts";

/**
 * Parses one kubeconfig (YAML or JSON). An empty document is an empty kubeconfig, as for kubectl.
 * @returns the config, or every problem found, each naming `options.source`.
 */
export function parseKubeconfig(text: string, options: ParseKubeconfigOptions): KubeconfigResult {
  const json = parseJsonKubeconfig(text, options);
  if (json !== undefined) return json;
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (error) {
    return { problems: [`${options.source}: not valid YAML (${(error as Error).name})`] };
  }
  return buildKubeconfig(document, options);
}
