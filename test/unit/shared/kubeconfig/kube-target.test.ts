import { describe, expect, it } from "vitest";
import { selectKubeTarget, toExecClusterInfo } from "../../../../shared/kubeconfig/kube-target.ts";
import { parseKubeconfig } from "../../../../shared/kubeconfig/kubeconfig.ts";

const CA = btoa("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");

function select(yaml: string, context?: string) {
  const { config } = parseKubeconfig(yaml, { source: "kc" });
  return selectKubeTarget(config!, context);
}

const base = (user: string, cluster = `server: https://kube.example:6443`) => `
current-context: main
clusters: [{ name: c, cluster: { ${cluster} } }]
users: [{ name: u, user: { ${user} } }]
contexts:
- { name: main, context: { cluster: c, user: u } }
- { name: other, context: { cluster: c } }
`;

describe("selectKubeTarget", () => {
  it("resolves the current context's cluster and token; KUBE_CONTEXT over it, whose context may have no user", () => {
    const { target, problems } = select(
      base(
        "token: abc",
        `server: "https://kube.example:6443", certificate-authority-data: "${CA}", tls-server-name: kube.internal`,
      ),
    );
    expect(problems).toEqual([]);
    expect(target).toEqual({
      contextName: "main",
      cluster: {
        name: "c",
        server: "https://kube.example:6443",
        certificateAuthorityData: CA,
        tlsServerName: "kube.internal",
        insecureSkipTlsVerify: false,
        disableCompression: false,
      },
      auth: { kind: "token", token: "abc" },
    });
    expect(select(base("token: abc"), "other").target?.auth).toEqual({ kind: "none" });
  });

  it("resolves exec users and the cluster's exec extension", () => {
    const yaml = base(
      "exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token], interactiveMode: Never, provideClusterInfo: true }",
      'server: "https://k", extensions: [{ name: client.authentication.k8s.io/exec, extension: { audience: x } }, { name: other, extension: {} }]',
    );
    const { target } = select(yaml);
    expect(target?.auth).toMatchObject({
      kind: "exec",
      exec: { command: "aws", args: ["eks", "get-token"], provideClusterInfo: true },
    });
    expect(toExecClusterInfo(target!.cluster)).toEqual({ server: "https://k", config: { audience: "x" } });
  });

  it("gives exec plugins the cluster in client-go's keys, leaving out empty and false fields as its omitempty does", () => {
    const cluster = {
      name: "c",
      server: "https://k",
      tlsServerName: "",
      insecureSkipTlsVerify: true,
      disableCompression: false,
      execExtension: null,
    };
    expect(toExecClusterInfo(cluster)).toEqual({ server: "https://k", "insecure-skip-tls-verify": true });
    const full = {
      ...cluster,
      tlsServerName: "kube.internal",
      insecureSkipTlsVerify: false,
      proxyUrl: "http://proxy:3128",
      disableCompression: true,
    };
    expect(toExecClusterInfo(full, "Q0E=")).toEqual({
      server: "https://k",
      "tls-server-name": "kube.internal",
      "certificate-authority-data": "Q0E=",
      "proxy-url": "http://proxy:3128",
      "disable-compression": true,
    });
  });

  it("reports every problem of the context together", () => {
    const { target, problems } = select(
      base(
        'token: a, client-certificate-data: "!!", auth-provider: { name: oidc }, username: u, as: admin, exec: { apiVersion: client.authentication.k8s.io/v1, command: k, interactiveMode: Always }',
        `server: "ftp://k", certificate-authority: ca.crt, certificate-authority-data: "${CA}", insecure-skip-tls-verify: true`,
      ),
    );
    expect(target).toBeUndefined();
    expect(problems).toEqual([
      'kc: cluster "c".server must be https or http',
      'kc: cluster "c": certificate-authority and certificate-authority-data are both set',
      'kc: cluster "c": insecure-skip-tls-verify cannot be combined with a certificate authority',
      'kc: user "u".auth-provider is not supported; use an exec plugin',
      'kc: user "u": basic authentication is not supported',
      'kc: user "u".as: impersonation is not supported',
      'kc: user "u".client-certificate-data is not base64',
      'kc: user "u": a client certificate needs its key',
      'kc: user "u".exec.interactiveMode Always needs a terminal, which a webhook never has',
      'kc: user "u": set one of token/tokenFile, client certificate or exec, not several',
    ]);
  });

  it("refuses token and tokenFile together, which kubectl would read as the file with the token as a fallback", () => {
    const { target, problems } = select(base("token: a, tokenFile: /var/run/token"));
    expect(target).toBeUndefined();
    expect(problems).toEqual(['kc: user "u": token and tokenFile are both set; keep one']);
  });

  it("names missing contexts, clusters and users", () => {
    expect(select("current-context: x").problems).toEqual(['kubeconfig: context "x" is not defined']);
    expect(select("").problems).toEqual(["kubeconfig: no current-context is set and KUBE_CONTEXT is empty"]);
    expect(
      select("current-context: x\ncontexts: [{ name: x, context: { cluster: nope, user: nobody } }]").problems,
    ).toEqual([
      'kubeconfig: context "x" names cluster "nope", which is not defined',
      'kubeconfig: context "x" names user "nobody", which is not defined',
    ]);
  });
});
