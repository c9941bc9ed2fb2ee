/**
 * The block YAML reader against the `yaml` package the kubeconfig loader uses otherwise: it reads the kubeconfigs
 * people write and tools generate, and whatever it reads, it reads as the parser does; the rest it declines.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify, type ToStringOptions } from "yaml";
import { writeKubeconfig } from "../../../../infra/local/kubeconfig.ts";
import { REPO_ROOT } from "../../../../infra/repo-root.ts";
import { readBlockYaml } from "../../../../shared/kubeconfig/block-yaml.ts";
import { tempDir } from "../../../support/temp-dir.ts";

/** What `kubectl config view --raw` prints (sequences at their key's indentation, `preferences: {}`). */
const KUBECTL = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    server: https://127.0.0.1:6443
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    namespace: ""
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: arn:aws:eks:eu-west-1:111122223333:cluster/prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      - --cluster-name
      - prod
      command: aws
      env: null
      interactiveMode: IfAvailable
      provideClusterInfo: false
`;

/** Hand-written: comments everywhere, quotes of both kinds, a document start, CRLF line ends, a key with no value. */
const BY_HAND = [
  "# the webhook's own kubeconfig",
  "---",
  "apiVersion: v1   # always v1",
  "kind: 'Config'",
  "clusters:",
  "  # one cluster",
  "  - name: \"prod\"",
  "    cluster:",
  "      server: 'https://k8s.example:6443'  # the API server",
  "      insecure-skip-tls-verify: false",
  "users:",
  "  -   name: 'it''s'",
  "      user:",
  "        token: 'a''b#c'",
  "contexts:",
  "-",
  "  name: prod",
  "  context: {}",
  "current-context: prod",
  "extensions:",
  "",
].join("\r\n");

describe("readBlockYaml reads what kubeconfigs are written in, as the YAML parser does", () => {
  it.each([
    ["kubectl config view", KUBECTL],
    ["the example kubeconfigs of the AWS and Azure builds", null],
  ])("%s", async (_name, text) => {
    const texts = text === null ? await Promise.all(["aws", "azure"].flatMap((cloud) => ["kubeconfig.example.yaml", "kubeconfig.exec.example.yaml"].map((file) => readFile(path.join(REPO_ROOT, "infra", cloud, file), "utf8")))) : [text];
    for (const each of texts) {
      const read = readBlockYaml(each);
      expect(read).toBeDefined();
      expect(read).toStrictEqual(parse(each));
    }
  });

  it("the local stack's kubeconfigs (written by the yaml package)", async () => {
    const file = path.join(await tempDir("gmsa-block-yaml-"), "kubeconfig");
    await writeKubeconfig({ path: file, server: "https://127.0.0.1:6443", caPem: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", name: "gmsa-expand", user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "/usr/bin/node", args: ["plugin.ts", "--lifetime", "3600"], env: [{ name: "COUNT_FILE", value: "/tmp/x y/runs" }], interactiveMode: "Never" } } });
    const text = await readFile(file, "utf8");
    expect(readBlockYaml(text)).toStrictEqual(parse(text));
  });

  it("by hand, with comments, quotes, CRLF line ends and a key without a value", () => {
    const read = readBlockYaml(BY_HAND);
    expect(read).toStrictEqual(parse(BY_HAND));
    expect(read).toMatchObject({ users: [{ name: "it's", user: { token: "a'b#c" } }], extensions: null });
  });
});

describe("readBlockYaml declines what it does not read, for the parser", () => {
  it.each([
    ["a flow mapping", "clusters: [{name: a}]\n"],
    ["a flow sequence of quoted items", "args: ['a', 'b']\n"],
    ["a flow sequence over lines", "args: [a,\n  b]\n"],
    ["an anchor and an alias", "a: &x b\nc: *x\n"],
    ["a tag", "a: !!str b\n"],
    ["a block scalar", "a: |\n  b\n"],
    ["a plain scalar over two lines", "a: b\n  c\n"],
    ["an escape in double quotes", 'a: "b\\nc"\n'],
    ["a quote left open", "a: 'b\n"],
    ["something after a quote", "a: 'b' c\n"],
    ["a directive", "%YAML 1.2\n---\na: b\n"],
    ["a second document", "a: b\n---\nc: d\n"],
    ["a document end", "a: b\n...\n"],
    ["a tab", "a:\tb\n"],
    ["a character outside ASCII", "a: é\n"],
    ["a repeated key", "a: b\na: c\n"],
    ["a quoted key", '"a": b\n'],
    ["a key the core schema reads as a boolean", "true: b\n"],
    ["an integer", "a: 1\n"],
    ["a float", "a: .5\n"],
    ["a negative number", "a: -1\n"],
    ["a hexadecimal number", "a: 0x1F\n"],
    ["a colon and a space in a plain scalar", "a: b: c\n"],
    ["a sequence item after a scalar value", "a: b\n- c\n"],
    ["an indented root", "  a: b\n"],
    ["deeper indentation after a scalar", "a: b\n   c: d\n"],
    ["a bare scalar", "just text\n"],
    ["an empty document", "# nothing\n"],
  ])("%s", (_name, text) => {
    expect(readBlockYaml(text)).toBeUndefined();
  });
});

const KEYS = ["apiVersion", "clusters", "certificate-authority-data", "current-context", "a.b/c", "x_1", "true", "Null", "1", "-a", "a b", "a:b", "a #b", "<<", "__proto__", "y"];
const TRICKY = ["", " ", "true", "False", "null", "NULL", "~", "yes", "on", "0", "01", "-1", "+1", "+x", "1.5", ".5", "1e3", "0x1F", "0o17", ".inf", "-.inf", ".nan", ".x", "./x", "-", "--x", "- x", "-x", "-/x", "a: b", "a:b", "a:", "a #b", "a#b", "#a", "'", '"', "a'b", "'a'", "[a]", "[a, b]", "{}", "[]", "a, b", "&a", "*a", "!a", "|", ">", "%a", "@a", "`a", "? a", ": a", "https://host:6443", "LS0t+/==", "a\\b", "a\tb", "a\nb", "é", "a  b", " lead", "trail ", "---", "...", "a [b]"];
const word = fc.stringMatching(/^[a-z/-][a-z0-9.:/ -]{0,12}$/);
const scalarArb = fc.oneof(
  { arbitrary: word, weight: 12 },
  { arbitrary: fc.constantFrom(...TRICKY), weight: 2 },
  { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.integer(), weight: 1 },
);
const keyArb = fc.oneof({ arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), weight: 12 }, { arbitrary: fc.constantFrom(...KEYS), weight: 1 });
const { document: documentArb } = fc.letrec<{ document: unknown; value: unknown }>((tie) => ({
  document: fc.dictionary(keyArb, tie("value"), { minKeys: 1, maxKeys: 5 }),
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalarArb, fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(keyArb, tie("value"), { maxKeys: 4 })),
}));
const stringifyOptionsArb: fc.Arbitrary<ToStringOptions> = fc.record({
  indentSeq: fc.boolean(),
  indent: fc.constantFrom(2, 4),
  defaultStringType: fc.constantFrom("PLAIN", "PLAIN", "QUOTE_SINGLE", "QUOTE_DOUBLE"),
  collectionStyle: fc.constantFrom("any", "block", "flow"),
  lineWidth: fc.constantFrom(0, 20, 80),
});

/** Runs `text` through both; a document the reader reads must parse to the same value. */
function agrees(text: string): boolean {
  const read = readBlockYaml(text);
  if (read === undefined) return false;
  expect(read).toStrictEqual(parse(text));
  return true;
}

/** Small edits that take a document to the edges of the subset: characters YAML gives meaning to, indentation, lines. */
const editArb = fc.oneof(
  fc.tuple(fc.nat(), fc.constantFrom(" ", ":", ": ", "-", "- ", "#", " #", "'", '"', "[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?", "\n", "\n  ", "\t", "1", ".", "~")).map(
    ([at, insert]) => (text: string) => text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3 })).map(([at, length]) => (text: string) => text.slice(0, at % (text.length + 1)) + text.slice((at % (text.length + 1)) + length)),
  fc.nat().map((at) => (text: string) => {
    const lines = text.split("\n");
    const index = at % lines.length;
    lines.splice(index, 0, lines[index]!);
    return lines.join("\n");
  }),
);

describe("readBlockYaml against the yaml package", () => {
  it("reads every document the yaml package writes either as the parser does, or not at all", () => {
    let read = 0;
    fc.assert(
      fc.property(documentArb, stringifyOptionsArb, (document, options) => {
        if (agrees(stringify(document, options))) read++;
      }),
      { numRuns: 3000 },
    );
    // The property holds on documents the reader reads, not only on those it declines.
    expect(read).toBeGreaterThan(100);
  });

  it("reads documents of words and booleans in block style, plain keys, values plain or quoted, either indentation of sequences", () => {
    const plainWord = fc.stringMatching(/^[a-z][a-z0-9.:/-]{0,12}$/).filter((s) => !s.endsWith(":") && !["true", "false", "null"].includes(s));
    const simpleKey = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/).filter((s) => !["true", "false", "null"].includes(s));
    const { tree } = fc.letrec<{ tree: unknown; node: unknown }>((tie) => ({
      tree: fc.dictionary(simpleKey, tie("node"), { minKeys: 1, maxKeys: 5 }),
      node: fc.oneof({ depthSize: "small" }, fc.oneof(plainWord, fc.boolean(), fc.constant(null)), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(simpleKey, tie("node"), { maxKeys: 4 })),
    }));
    fc.assert(
      fc.property(tree, fc.boolean(), fc.constantFrom("PLAIN", "QUOTE_SINGLE", "QUOTE_DOUBLE"), (document, indentSeq, defaultStringType) => {
        const text = stringify(document, { indentSeq, defaultKeyType: "PLAIN", defaultStringType, lineWidth: 0 });
        const read = readBlockYaml(text);
        expect(read).toEqual(document);
        expect(read).toStrictEqual(parse(text));
      }),
      { numRuns: 1000 },
    );
  });

  it("reads documents edited at random as the parser does, or not at all", () => {
    let read = 0;
    fc.assert(
      fc.property(documentArb, fc.boolean(), fc.array(editArb, { minLength: 1, maxLength: 3 }), (document, indentSeq, edits) => {
        const text = edits.reduce((edited, edit) => edit(edited), stringify(document, { indentSeq, collectionStyle: "block", lineWidth: 0 }));
        // Text the parser refuses is no disagreement when the reader declines it too.
        if (agrees(text)) read++;
      }),
      { numRuns: 5000 },
    );
    expect(read).toBeGreaterThan(100);
  });
});
