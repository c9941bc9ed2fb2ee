/**
 * A kubeconfig's text read into plain values as kubectl reads it. client-go decodes kubeconfigs with go-yaml v2 (through
 * sigs.k8s.io/yaml), a YAML 1.1 reader, so the `yaml` package reads them as YAML 1.1 too: merge keys (`<<`) are
 * honoured, and `yes`/`no`/`on`/`off` are booleans, which the schema then refuses where kubectl would refuse them too.
 * Where the two readers are known to differ otherwise, the text is refused or read as go-yaml reads it.
 */
import { parseDocument, type Tags, type YAMLError } from "yaml";

/** The document (null for an empty one), or why it cannot be read; never the text itself, which may hold secrets. */
export type KubeconfigYaml = { document: unknown } | { problem: string };

/**
 * go-yaml reads NEL, LS and PS as line breaks (YAML 1.1), the `yaml` package does not (YAML 1.2 section 5.4): rather
 * than guess, refuse them.
 */
const OTHER_LINE_BREAKS = /[\u0085\u2028\u2029]/;

/**
 * YAML 1.1 as go-yaml v2 resolves it: a timestamp stays a string (go-yaml keeps it one for an untyped value, which is
 * what sigs.k8s.io/yaml decodes into) and `1:30` is not a base-60 number.
 */
function goYamlTags(tags: Tags): Tags {
  return tags.filter((tag) => typeof tag === "string" || (tag.tag !== "tag:yaml.org,2002:timestamp" && tag.format !== "TIME"));
}

/** Reads one kubeconfig document. JSON is YAML and is read the same way. */
export function readKubeconfigYaml(text: string): KubeconfigYaml {
  if (OTHER_LINE_BREAKS.test(text)) {
    return { problem: "holds a NEL, LS or PS character, which kubectl reads as a line break; escape it in a double-quoted string" };
  }
  // A lone CR is a line break to go-yaml as to YAML 1.2, but the `yaml` package keeps a trailing one in the value.
  const document = parseDocument(text.replace(/\r\n?/g, "\n"), { version: "1.1", merge: true, customTags: goYamlTags });
  const [error] = [...document.errors, ...document.warnings];
  if (error !== undefined) return { problem: `not valid YAML (${describe(error)})` };
  // go-yaml v2 refuses any other %YAML directive ("found incompatible YAML document").
  if (document.directives?.yaml.version !== "1.1") return { problem: "declares a YAML version other than 1.1, which kubectl refuses" };
  try {
    return { document: document.toJS() };
  } catch (error) {
    // A merge key that names no mapping, or too many aliases: the messages are the library's own, without content.
    return { problem: `not valid YAML (${(error as Error).message})` };
  }
}

/** The error's code and where it is, not its message: that quotes the offending line, which may hold a token. */
function describe(error: YAMLError): string {
  const at = error.linePos?.[0];
  return at === undefined ? error.code : `${error.code} at line ${at.line}, column ${at.col}`;
}
