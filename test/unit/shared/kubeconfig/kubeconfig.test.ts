import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseJsonKubeconfig } from "../../../../shared/kubeconfig/kubeconfig-document.ts";
import { mergeKubeconfigs, parseKubeconfig, type Kubeconfig } from "../../../../shared/kubeconfig/kubeconfig.ts";

function parse(text: string, resolvePath?: (path: string) => string): Kubeconfig {
  const { config, problems } = parseKubeconfig(text, { source: "test", ...(resolvePath ? { resolvePath } : {}) });
  expect(problems).toEqual([]);
  return config!;
}

const first = `
apiVersion: v1
kind: Config
current-context: ""
clusters:
- name: shared
  cluster: { server: "https://first" }
users:
- name: shared
  user: { token: first }
contexts:
- name: shared
  context: { cluster: shared, user: shared }
`;
const second = `
current-context: second
clusters:
- name: shared
  cluster: { server: "https://second" }
- name: extra
  cluster: { server: "https://extra" }
`;
const third = "current-context: third\n";

describe("parseKubeconfig", () => {
  it("treats an empty document as an empty kubeconfig", () => {
    expect(parse("").clusters.size).toBe(0);
  });

  it("reports YAML and shape problems with the source and never the content", () => {
    expect(parseKubeconfig("clusters: [\n  token: s3cret", { source: "secret" }).problems).toEqual(["secret: not valid YAML (YAMLParseError)"]);
    const { problems } = parseKubeconfig("clusters: nope\nusers: [{ user: {} }]", { source: "f" });
    expect(problems).toHaveLength(2);
    expect(problems.join()).toMatch(/^f: clusters/);
  });

  it("resolves relative paths against the file, and exec commands only when they contain a separator", () => {
    const config = parse(
      `
clusters: [{ name: c, cluster: { server: "https://k", certificate-authority: ca.crt } }]
users:
- { name: a, user: { tokenFile: tok, client-certificate: /abs/c.crt, client-key: k.key } }
- { name: b, user: { exec: { command: ./bin/plugin } } }
- { name: c, user: { exec: { command: aws } } }
`,
      (path) => (path.startsWith("/") ? path : `/home/me/.kube/${path}`),
    );
    expect(config.clusters.get("c")?.cluster["certificate-authority"]).toBe("/home/me/.kube/ca.crt");
    expect(config.users.get("a")?.user).toMatchObject({ tokenFile: "/home/me/.kube/tok", "client-certificate": "/abs/c.crt", "client-key": "/home/me/.kube/k.key" });
    expect(config.users.get("b")?.user.exec).toEqual({ command: "/home/me/.kube/./bin/plugin" });
    expect(config.users.get("c")?.user.exec).toEqual({ command: "aws" });
  });
});

describe("parseJsonKubeconfig", () => {
  const options = { source: "test", resolvePath: (entry: string) => `/base/${entry}` };

  it("reads a JSON kubeconfig without the YAML parser, as the YAML parser reads the same text", () => {
    const json = JSON.stringify({ ...(parseYaml(first) as object), users: [{ name: "shared", user: { tokenFile: "token", exec: { command: "./plugin" } } }] });
    const fast = parseJsonKubeconfig(json, options);
    expect(fast?.problems).toEqual([]);
    expect(fast?.config?.users.get("shared")?.user).toEqual({ tokenFile: "/base/token", exec: { command: "/base/./plugin" } });
    // kubeconfig.ts's YAML path, forced by a leading comment, reads the same text to the same config.
    expect(parseKubeconfig(`# yaml\n${json}`, options)).toEqual(fast);
  });

  it("leaves YAML, other JSON and repeated keys to the YAML parser, which refuses a repeated key", () => {
    expect(parseJsonKubeconfig(first, options)).toBeUndefined();
    expect(parseJsonKubeconfig("[1]", options)).toBeUndefined();
    expect(parseJsonKubeconfig('{"a": 1,}', options)).toBeUndefined();
    const repeated = '{"current-context": "a", "current-context": "b"}';
    expect(parseJsonKubeconfig(repeated, options)).toBeUndefined();
    expect(parseKubeconfig(repeated, options).problems).toEqual(["test: not valid YAML (YAMLParseError)"]);
  });
});

describe("mergeKubeconfigs", () => {
  it("lets the first file that defines a name or current-context win, as kubectl does", () => {
    const merged = mergeKubeconfigs([parse(first), parse(second), parse(third)]);
    expect(merged.clusters.get("shared")?.cluster.server).toBe("https://first");
    expect(merged.clusters.get("extra")?.cluster.server).toBe("https://extra");
    expect(merged.currentContext).toBe("second");
  });
});

// Kept from the former check that the Worker's YAML stand-in agreed with `yaml`: one parser now reads every kubeconfig.
describe("parseKubeconfig on YAML it must refuse or read", () => {
  const BROKEN: Record<string, string> = {
    "duplicate keys": "current-context: a\ncurrent-context: b\n",
    "unclosed flow sequence": "clusters: [\n  token: s3cret",
    "bad indentation": "users:\n  - name: a\n   user: {}\n",
    "tab indentation": "users:\n\t- name: a\n",
    "two documents": "current-context: a\n---\ncurrent-context: b\n",
    // YAML 1.2 section 7.3.3: in flow context a plain scalar may not hold [ ] { } or "," (kubectl writes block style).
    "an unquoted IPv6 URL in a flow mapping": "cluster: {server: https://[2001:db8::1]:443}",
  };

  it.each(Object.entries(BROKEN))("refuses %s", (_name, text) => {
    const { config, problems } = parseKubeconfig(text, { source: "s" });
    expect(config).toBeUndefined();
    expect(problems).toEqual([expect.stringMatching(/^s: /)]);
  });

  it("reads a kubectl-written kubeconfig in block style with comments and base64 data", () => {
    const text = [
      "# written by kubectl",
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: prod",
      "  cluster:",
      "    server: https://203.0.113.10:6443",
      "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCK3dJSkFLSE==",
      "    insecure-skip-tls-verify: false",
      "    tls-server-name: kubernetes.default",
      "users:",
      "- name: gmsa",
      "  user:",
      "    exec:",
      "      apiVersion: client.authentication.k8s.io/v1beta1",
      "      command: aws",
      "      args: [--region, eu-west-1, eks, get-token, --cluster-name, prod, --output, json]",
      "      env:",
      "      - {name: HOME, value: /tmp}",
      "      interactiveMode: Never",
      "      provideClusterInfo: false",
      "contexts:",
      "- name: prod",
      "  context: {cluster: prod, user: gmsa}",
      "current-context: prod",
      "preferences: {}",
    ].join("\n");
    expect(parseKubeconfig(text, { source: "s" }).problems).toEqual([]);
  });

  it.each([
    "infra/caller-auth/bearer/kubeconfig.yaml",
    "infra/caller-auth/jwt/kubeconfig.yaml",
    "infra/caller-auth/mtls/kubeconfig.yaml",
    "infra/aws/kubeconfig.example.yaml",
    "infra/aws/kubeconfig.exec.example.yaml",
    "infra/azure/kubeconfig.example.yaml",
    "infra/azure/kubeconfig.exec.example.yaml",
  ])("reads %s", async (file) => {
    const text = await readFile(new URL(`../../../../${file}`, import.meta.url), "utf8");
    expect(parseKubeconfig(text, { source: file }).problems).toEqual([]);
  });
});
