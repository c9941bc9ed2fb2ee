/**
 * The Worker build parses the KUBECONFIG secret with infra/cloudflare/yaml-parse.ts (js-yaml) where Node uses the
 * `yaml` package: both must read every kubeconfig alike, and refuse the same broken ones.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse as parseWithYaml } from "yaml";
import { parse as parseForWorkers } from "../../../infra/cloudflare/yaml-parse.ts";
import { parseKubeconfig } from "../../../shared/kube/kubeconfig.ts";

const SAMPLES: Record<string, string> = {
  "block style, comments, base64 data": [
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
  ].join("\n"),
  "flow style on one line": '{"apiVersion":"v1","clusters":[{"name":"c","cluster":{"server":"https://127.0.0.1:1"}}],"current-context":"c"}',
  "quoted and plain scalars YAML 1.1 would read as booleans or numbers": [
    "current-context: 'on'",
    "users:",
    "- name: yes",
    "  user: {token: 0123, username: no, password: \"true\"}",
    "clusters:",
    "- name: 1.20",
    "  cluster:",
    "    server: https://[2001:db8::1]:443",
    "    proxy-url: null",
    "    disable-compression: ~",
  ].join("\n"),
  "literal and folded blocks, anchors and aliases": [
    "clusters:",
    "- name: &n shared",
    "  cluster:",
    "    server: https://example.com",
    "    extensions:",
    "    - name: client.authentication.k8s.io/exec",
    "      extension: |",
    "        line one",
    "        line two",
    "contexts:",
    "- {name: *n, context: {cluster: *n, user: *n}}",
    "users:",
    "- name: *n",
    "  user:",
    "    token: >-",
    "      folded",
    "      token",
  ].join("\n"),
  "empty document": "",
  "comments only": "# nothing here\n",
};

const BROKEN: Record<string, string> = {
  "duplicate keys": "current-context: a\ncurrent-context: b\n",
  "unclosed flow sequence": "clusters: [\n  token: s3cret",
  "bad indentation": "users:\n  - name: a\n   user: {}\n",
  "tab indentation": "users:\n\t- name: a\n",
  "two documents": "current-context: a\n---\ncurrent-context: b\n",
  // YAML 1.2 section 7.3.3: in flow context a plain scalar may not hold [ ] { } or "," (kubectl writes block style).
  "an unquoted IPv6 URL in a flow mapping": "cluster: {server: https://[2001:db8::1]:443}",
};

describe("the Workers' yaml stand-in", () => {
  it.each(Object.entries(SAMPLES))("reads %s as the yaml package does", (_name, text) => {
    expect(parseForWorkers(text)).toEqual(parseWithYaml(text) as unknown);
  });

  it.each(Object.entries(BROKEN))("refuses %s as the yaml package does", (_name, text) => {
    expect(() => void parseWithYaml(text)).toThrow();
    expect(() => void parseForWorkers(text)).toThrow();
  });

  it.each([
    "infra/caller-auth/bearer/kubeconfig.yaml",
    "infra/caller-auth/jwt/kubeconfig.yaml",
    "infra/caller-auth/mtls/kubeconfig.yaml",
    "infra/aws/kubeconfig.example.yaml",
    "infra/azure/kubeconfig.example.yaml",
  ])("reads %s as the yaml package does", async (file) => {
    const text = await readFile(new URL(`../../../${file}`, import.meta.url), "utf8");
    expect(parseForWorkers(text)).toEqual(parseWithYaml(text) as unknown);
  });

  it("gives parseKubeconfig the same kubeconfig from either parser", () => {
    const text = SAMPLES["block style, comments, base64 data"]!;
    const viaYaml = parseKubeconfig(text, { source: "s" });
    expect(viaYaml.problems).toEqual([]);
    expect(parseKubeconfig(JSON.stringify(parseForWorkers(text)), { source: "s" })).toEqual(viaYaml);
  });
});
