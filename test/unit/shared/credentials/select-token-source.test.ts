import { describe, expect, it } from "vitest";
import type { JwtSettings } from "../../../../shared/config/index.ts";
import { selectTokenSource, type TokenSourceCapabilities } from "../../../../shared/credentials/select-token-source.ts";
import type { KubeTarget, KubeUserAuth } from "../../../../shared/kubeconfig/kube-target.ts";

const everything: TokenSourceCapabilities = { runtime: "Node", exec: true, tokenFile: true, clientCertificate: true, anonymous: true };
const fetchOnly: TokenSourceCapabilities = { runtime: "Workers", exec: false, tokenFile: false, clientCertificate: false, anonymous: false };
const jwt: JwtSettings = { privateKey: "k", issuer: "https://i", subject: "s", audience: ["a"], lifetimeMs: 600_000 };
const exec = { apiVersion: "client.authentication.k8s.io/v1", command: "plugin", args: [], env: [], interactiveMode: "Never", provideClusterInfo: false };

function target(auth: KubeUserAuth): KubeTarget {
  return { contextName: "c", cluster: { name: "k", server: "https://k", insecureSkipTlsVerify: false, disableCompression: false }, auth };
}

describe("selectTokenSource", () => {
  it.each<[string, KubeUserAuth, unknown]>([
    ["an exec plugin", { kind: "exec", exec: exec as never }, { kind: "exec", exec }],
    ["a token", { kind: "token", token: "t" }, { kind: "token", token: "t" }],
    ["a token file", { kind: "tokenFile", tokenFile: "/t" }, { kind: "tokenFile", tokenFile: "/t" }],
    ["a client certificate", { kind: "clientCertificate", certificateData: "c", keyData: "k" }, { kind: "clientCertificate" }],
  ])("takes the user's %s where the runtime can use it", (_name, auth, choice) => {
    expect(selectTokenSource(target(auth), undefined, everything)).toEqual({ choice, problems: [], warnings: [] });
  });

  it("uses JWT_* when the user has no credential, and warns of anonymous requests without it where allowed", () => {
    expect(selectTokenSource(target({ kind: "none" }), jwt, fetchOnly)).toEqual({ choice: { kind: "jwt", jwt }, problems: [], warnings: [] });
    expect(selectTokenSource(target({ kind: "none" }), undefined, everything)).toEqual({
      choice: { kind: "anonymous" },
      problems: [],
      warnings: ['kubeconfig context "c" has no credential: requests are anonymous'],
    });
    expect(selectTokenSource(target({ kind: "none" }), undefined, fetchOnly).problems).toEqual([
      'kubeconfig context "c": no credential; set JWT_* or give the user a token',
    ]);
  });

  it("refuses what the runtime cannot do, naming the runtime, and a credential beside JWT_*", () => {
    const refused = (auth: KubeUserAuth) => selectTokenSource(target(auth), undefined, fetchOnly);
    expect(refused({ kind: "exec", exec: exec as never })).toMatchObject({ choice: undefined, problems: [expect.stringContaining("exec plugins cannot run on Workers")] });
    expect(refused({ kind: "tokenFile", tokenFile: "/t" }).problems).toEqual(['kubeconfig context "c": tokenFile cannot be read on Workers; use token or JWT_*']);
    expect(refused({ kind: "clientCertificate" }).problems).toEqual([expect.stringContaining("client certificates cannot be presented on Workers")]);
    expect(selectTokenSource(target({ kind: "token", token: "t" }), jwt, everything)).toMatchObject({ choice: undefined, problems: [expect.stringContaining("keep one")] });
  });
});
