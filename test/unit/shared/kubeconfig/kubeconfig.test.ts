import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
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
  it("treats an empty document as an empty kubeconfig, and reports YAML and shape problems with the source, never the content", () => {
    expect(parse("").clusters.size).toBe(0);
    expect(parseKubeconfig("clusters: [\n  token: s3cret", { source: "secret" }).problems).toEqual([
      "secret: not valid YAML (BAD_INDENT at line 2, column 16)",
    ]);
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
    expect(config.users.get("a")?.user).toMatchObject({
      tokenFile: "/home/me/.kube/tok",
      "client-certificate": "/abs/c.crt",
      "client-key": "/home/me/.kube/k.key",
    });
    expect(config.users.get("b")?.user.exec).toEqual({ command: "/home/me/.kube/./bin/plugin" });
    expect(config.users.get("c")?.user.exec).toEqual({ command: "aws" });
  });
});

describe("mergeKubeconfigs", () => {
  it("lets the first file that defines a name or a non-empty current-context win, as kubectl does", () => {
    const merged = mergeKubeconfigs([parse(first), parse(second), parse(third)]);
    expect(merged.clusters.get("shared")?.cluster.server).toBe("https://first");
    expect(merged.clusters.get("extra")?.cluster.server).toBe("https://extra");
    expect(merged.currentContext).toBe("second");
  });

  it("takes the first file's entry whole, without fields the later one adds", () => {
    const later = parse(
      "clusters: [{ name: shared, cluster: { server: 'https://second', certificate-authority-data: Q0E= } }]",
    );
    expect(mergeKubeconfigs([parse(first), later]).clusters.get("shared")?.cluster).toEqual({
      server: "https://first",
    });
  });
});

// Kept from the former check that the Worker's YAML stand-in agreed with `yaml`: one parser now reads every kubeconfig.
describe("parseKubeconfig on YAML it must refuse or read", () => {
  const BROKEN: Record<string, string> = {
    "duplicate keys": "current-context: a\ncurrent-context: b\n",
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
    "infra/deploy/caller-auth/bearer/kubeconfig.yaml",
    "infra/deploy/caller-auth/jwt/kubeconfig.yaml",
    "infra/deploy/caller-auth/mtls/kubeconfig.yaml",
  ])("reads %s", async (file) => {
    const text = await readFile(new URL(`../../../../${file}`, import.meta.url), "utf8");
    expect(parseKubeconfig(text, { source: file }).problems).toEqual([]);
  });
});

describe("parseKubeconfig as client-go reads a kubeconfig", () => {
  const problemsOf = (text: string): string[] => parseKubeconfig(text, { source: "kc" }).problems;

  it.each([
    [
      "clusters",
      "clusters:\n- { name: prod, cluster: { server: 'https://right' } }\n- { name: prod, cluster: { server: 'https://wrong' } }\n",
    ],
    ["users", "users:\n- { name: gmsa, user: { token: a } }\n- { name: gmsa, user: { token: b } }\n"],
    ["contexts", "contexts:\n- { name: prod, context: { cluster: a } }\n- { name: prod, context: { cluster: b } }\n"],
    [
      "clusters.0.cluster.extensions",
      "clusters:\n- name: prod\n  cluster:\n    server: https://k\n    extensions:\n    - { name: client.authentication.k8s.io/exec, extension: {} }\n    - { name: client.authentication.k8s.io/exec, extension: {} }\n",
    ],
  ])("refuses a name given twice in %s, naming the name and the list, never the entries", (list, text) => {
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(`^kc: ${list.replaceAll(".", "\\.")}: the name "[^"]+" is defined more than once`),
    );
    expect(problems[0]).not.toMatch(/https:|token|: [ab]\b/);
  });

  it("honours merge keys: a CA given through `<<:` is kept, the entry's own keys win, one naming no mapping is refused", () => {
    const text = [
      "defaults: &defaults",
      "  server: https://shared.example",
      "  certificate-authority-data: UFJJVkFURS1DQQ==",
      "clusters:",
      "- name: prod",
      "  cluster:",
      "    <<: *defaults",
      "    server: https://prod.example",
      "",
    ].join("\n");
    const { config, problems } = parseKubeconfig(text, { source: "kc" });
    expect(problems).toEqual([]);
    expect(config?.clusters.get("prod")?.cluster).toEqual({
      server: "https://prod.example",
      "certificate-authority-data": "UFJJVkFURS1DQQ==",
    });
    expect(problemsOf("clusters:\n- name: prod\n  cluster:\n    <<: https://k\n")).toEqual([
      expect.stringMatching(/^kc: not valid YAML \(.*[Mm]erge/),
    ]);
  });

  it("reads YAML 1.1 booleans as kubectl does: yes is true, and not a string where one is expected", () => {
    const { config } = parseKubeconfig(
      "clusters: [{ name: c, cluster: { server: 'https://k', insecure-skip-tls-verify: yes } }]",
      { source: "kc" },
    );
    expect(config?.clusters.get("c")?.cluster["insecure-skip-tls-verify"]).toBe(true);
    expect(problemsOf("users: [{ name: u, user: { token: on } }]")).toEqual([
      expect.stringMatching(/^kc: users\.0\.user\.token: /),
    ]);
  });

  it("refuses a %YAML 1.2 directive, which kubectl's go-yaml refuses, and reads one for 1.1", () => {
    expect(problemsOf("%YAML 1.2\n---\ncurrent-context: a\n")).toEqual([
      "kc: declares a YAML version other than 1.1, which kubectl refuses",
    ]);
    expect(parse("%YAML 1.1\n---\ncurrent-context: a\n").currentContext).toBe("a");
  });

  it("reads timestamps and base-60 numbers as strings, as go-yaml v2 does", () => {
    const { config, problems } = parseKubeconfig("users: [{ name: 2026-11-25, user: { token: 1:30 } }]", {
      source: "kc",
    });
    expect(problems).toEqual([]);
    expect(config?.users.get("2026-11-25")?.user.token).toBe("1:30");
  });

  it("reads CRLF and lone CR line ends, a trailing one too, as line feeds", () => {
    const lines = [
      "clusters:",
      "- name: c",
      "  cluster:",
      "    server: https://k",
      "    certificate-authority-data: Q0E=",
      "current-context: main",
    ];
    const expected = parse(lines.join("\n"));
    for (const end of ["\r\n", "\r"]) {
      expect(parse(lines.join(end))).toEqual(expected);
      expect(parse(lines.join(end) + end)).toEqual(expected);
    }
    expect(parse("current-context: main\r").currentContext).toBe("main");
  });

  it("refuses NEL, LS and PS, which kubectl reads as line breaks and YAML 1.2 does not", () => {
    for (const character of ["\u0085", "\u2028", "\u2029"]) {
      expect(problemsOf(`current-context: a${character}b\n`)).toEqual([
        expect.stringMatching(/^kc: holds a NEL, LS or PS character/),
      ]);
    }
  });

  it("reads JSON as YAML, and refuses a repeated key naming where, not what", () => {
    const json = JSON.stringify({
      "current-context": "main",
      clusters: [{ name: "c", cluster: { server: "https://k" } }],
    });
    expect(parse(json).clusters.get("c")?.cluster.server).toBe("https://k");
    expect(problemsOf('{"current-context": "a",\n "current-context": "s3cret"}')).toEqual([
      "kc: not valid YAML (DUPLICATE_KEY at line 2, column 2)",
    ]);
  });
});
