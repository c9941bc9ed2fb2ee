import { describe, expect, it } from "vitest";
import { mergeKubeconfigs, parseKubeconfig, type Kubeconfig } from "../../../../shared/kube/kubeconfig.ts";

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

describe("mergeKubeconfigs", () => {
  it("lets the first file that defines a name or current-context win, as kubectl does", () => {
    const merged = mergeKubeconfigs([parse(first), parse(second), parse(third)]);
    expect(merged.clusters.get("shared")?.cluster.server).toBe("https://first");
    expect(merged.clusters.get("extra")?.cluster.server).toBe("https://extra");
    expect(merged.currentContext).toBe("second");
  });
});
