import { describe, expect, it } from "vitest";
import type { CloudTokenSettings } from "../../../../shared/credentials/cloud-token-source.ts";
import type { ExecConfig } from "../../../../shared/credentials/exec-config.ts";
import type { JwtSettings } from "../../../../shared/credentials/jwt.ts";
import { selectTokenSource, type TokenSourceCapabilities } from "../../../../shared/credentials/select-token-source.ts";
import type { KubeTarget, KubeUserAuth } from "../../../../shared/kubeconfig/kube-target.ts";

const everything: TokenSourceCapabilities = {
  runtime: "Node",
  exec: true,
  tokenFile: true,
  clientCertificate: true,
  cloudTokens: ["eks", "aks", "gke"],
};
const fetchOnly: TokenSourceCapabilities = {
  runtime: "Workers",
  exec: false,
  tokenFile: false,
  clientCertificate: false,
  cloudTokens: ["eks"],
};
const jwt: JwtSettings = { privateKey: "k", issuer: "https://i", subject: "s", audience: ["a"] };
const eks: CloudTokenSettings = {
  kind: "eks",
  cluster: "prod",
  region: "eu-west-1",
  credentials: { accessKeyId: "AKID", secretAccessKey: "secret" },
};
const aks: CloudTokenSettings = {
  kind: "aks",
  endpoint: "http://127.0.0.1:41741/msi/token",
  identityHeader: "h",
  resource: "r",
};
const gke: CloudTokenSettings = { kind: "gke", host: "metadata.google.internal", serviceAccount: "default" };
const exec: ExecConfig = {
  apiVersion: "client.authentication.k8s.io/v1",
  command: "plugin",
  args: [],
  env: [],
  interactiveMode: "Never",
  provideClusterInfo: false,
};

function target(auth: KubeUserAuth): KubeTarget {
  return {
    contextName: "c",
    cluster: { name: "k", server: "https://k", insecureSkipTlsVerify: false, disableCompression: false },
    auth,
  };
}

describe("selectTokenSource", () => {
  it.each<[string, KubeUserAuth]>([
    ["an exec plugin", { kind: "exec", exec }],
    ["a token", { kind: "token", token: "t" }],
    ["a token file", { kind: "tokenFile", tokenFile: "/t" }],
    ["a client certificate", { kind: "clientCertificate", certificateData: "c", keyData: "k" }],
  ])("takes the user's %s where the runtime can use it", (_name, auth) => {
    expect(selectTokenSource(target(auth), {}, everything)).toEqual({ choice: auth, problems: [] });
  });

  it("uses JWT_* when the user has no credential, and refuses no credential at all on every runtime", () => {
    expect(selectTokenSource(target({ kind: "none" }), { jwt }, fetchOnly)).toEqual({
      choice: { kind: "jwt", jwt },
      problems: [],
    });
    for (const can of [everything, fetchOnly]) {
      expect(selectTokenSource(target({ kind: "none" }), {}, can)).toEqual({
        choice: undefined,
        problems: ['kubeconfig context "c": no credential; give the user one, or set JWT_* or CLOUD_TOKEN'],
      });
    }
  });

  // Workers' refusals of exec, tokenFile and CLOUD_TOKEN=aks or gke are cloudflare-workers/gmsa-client.test.ts's.
  it("refuses what the runtime cannot do, naming the runtime, and a credential beside JWT_*", () => {
    expect(selectTokenSource(target({ kind: "clientCertificate" }), {}, fetchOnly)).toEqual({
      choice: undefined,
      problems: [expect.stringContaining("client certificates cannot be presented on Workers")],
    });
    expect(selectTokenSource(target({ kind: "token", token: "t" }), { jwt }, everything)).toMatchObject({
      choice: undefined,
      problems: [expect.stringContaining("keep one")],
    });
  });

  it.each([eks, aks, gke])("uses CLOUD_TOKEN=$kind on Node when the user has no credential", (cloudToken) => {
    expect(selectTokenSource(target({ kind: "none" }), { cloudToken }, everything)).toEqual({
      choice: { kind: "cloud", cloudToken },
      problems: [],
    });
  });

  it("refuses CLOUD_TOKEN beside a user credential or beside JWT_*: keep one", () => {
    expect(selectTokenSource(target({ kind: "token", token: "t" }), { cloudToken: eks }, everything)).toEqual({
      choice: undefined,
      problems: [
        'kubeconfig context "c": the user has a credential of its own and CLOUD_TOKEN=eks is set too; keep one',
      ],
    });
    expect(selectTokenSource(target({ kind: "exec", exec }), { cloudToken: gke }, everything).problems).toEqual([
      'kubeconfig context "c": the user has a credential of its own and CLOUD_TOKEN=gke is set too; keep one',
    ]);
    expect(selectTokenSource(target({ kind: "none" }), { jwt, cloudToken: eks }, fetchOnly)).toEqual({
      choice: undefined,
      problems: ["JWT_* and CLOUD_TOKEN=eks are both set; keep one"],
    });
  });
});
