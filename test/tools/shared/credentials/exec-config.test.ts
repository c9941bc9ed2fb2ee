import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runPlugin } from "../../../../functions/node/kube/run-plugin.ts";
import { VARIABLES, withoutPluginSecrets } from "../../../../shared/config/variables.ts";
import {
  buildPluginEnv,
  validateExecConfig,
  type ExecClusterInfo,
  type ExecConfig,
} from "../../../../shared/credentials/exec-config.ts";
import { createExecTokenSource } from "../../../../shared/credentials/exec-credential.ts";
import { pluginPath } from "../../../support/exec-plugins.ts";
import { tempDir } from "../../../support/temp-dir.ts";

const V1 = "client.authentication.k8s.io/v1";
const cluster: ExecClusterInfo = {
  server: "https://kube.example:6443",
  "tls-server-name": "kube.internal",
  "certificate-authority-data": "Q0EgUEVN",
  "proxy-url": "http://proxy.example:3128",
  "disable-compression": true,
  config: { audience: "gmsa-webhooks", nested: { region: "eu-west-1" } },
};

describe("validateExecConfig", () => {
  it("accepts a v1 block and fills defaults", () => {
    expect(validateExecConfig({ apiVersion: V1, command: "aws", interactiveMode: "Never" }, "user")).toEqual({
      config: {
        apiVersion: V1,
        command: "aws",
        args: [],
        env: [],
        provideClusterInfo: false,
        interactiveMode: "Never",
      },
      problems: [],
    });
  });

  // interactiveMode Always, refused with the user named: test/unit/shared/kubeconfig/kube-target.test.ts.
  it("reports every problem together: unknown apiVersion, missing command, v1 without interactiveMode", () => {
    expect(validateExecConfig({ apiVersion: "client.authentication.k8s.io/v1alpha1" }, "u").problems).toHaveLength(1);
    const { problems } = validateExecConfig({ apiVersion: "client.authentication.k8s.io/v1alpha1", command: "x" }, "u");
    expect(problems).toEqual([
      "u.exec.apiVersion must be one of client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1",
    ]);
    expect(validateExecConfig({ apiVersion: V1, command: "x" }, "u").problems).toEqual([
      "u.exec.interactiveMode must be set for client.authentication.k8s.io/v1",
    ]);
  });

  it("defaults v1beta1 to IfAvailable, which runs non-interactively", () => {
    const { config } = validateExecConfig({ apiVersion: "client.authentication.k8s.io/v1beta1", command: "x" }, "u");
    expect(config?.interactiveMode).toBe("IfAvailable");
  });
});

describe("KUBERNETES_EXEC_INFO", () => {
  const buildExecInfo = (config: ExecConfig, info: ExecClusterInfo | undefined): unknown =>
    JSON.parse(buildPluginEnv(config, info, {})["KUBERNETES_EXEC_INFO"] ?? "");
  const base: Omit<ExecConfig, "provideClusterInfo"> = {
    apiVersion: V1,
    command: "p",
    args: [],
    env: [],
    interactiveMode: "Never",
  };

  it("without provideClusterInfo holds only the kind, apiVersion and interactive: false", () => {
    const info = buildExecInfo({ ...base, provideClusterInfo: false }, cluster);
    expect(JSON.stringify(info)).toBe(
      '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}',
    );
  });

  it("with provideClusterInfo holds the cluster, its CA as base64 and the exec extension config", () => {
    const info = buildExecInfo({ ...base, provideClusterInfo: true }, cluster);
    expect(JSON.stringify(info)).toBe(
      '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"cluster":{' +
        '"server":"https://kube.example:6443","tls-server-name":"kube.internal","certificate-authority-data":"Q0EgUEVN",' +
        '"proxy-url":"http://proxy.example:3128","disable-compression":true,' +
        '"config":{"audience":"gmsa-webhooks","nested":{"region":"eu-west-1"}}},"interactive":false}}',
    );
  });

  it("env: process env, then the config's env, then KUBERNETES_EXEC_INFO", () => {
    const env = buildPluginEnv(
      {
        ...base,
        provideClusterInfo: false,
        env: [
          { name: "A", value: "config" },
          { name: "KUBERNETES_EXEC_INFO", value: "spoof" },
        ],
      },
      undefined,
      { A: "process", B: "process", C: undefined },
    );
    expect(env).toEqual({
      A: "config",
      B: "process",
      KUBERNETES_EXEC_INFO: JSON.stringify(buildExecInfo({ ...base, provideClusterInfo: false }, undefined)),
    });
  });

  it("env: never our secrets or caller-authentication settings (the entry withholds them), unless the kubeconfig's env sets them", () => {
    const ours = {
      CALLER_AUTH: "bearer",
      CALLER_AUTH_TOKENS: "t0ken",
      CALLER_AUTH_JWT_SECRET: "s",
      CALLER_AUTH_PATH_SECRET: "p",
      CALLER_AUTH_JWT_ISSUER: "https://issuer.example",
      METRICS_TOKENS: "scrape-t0ken",
      JWT_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----",
      KUBECONFIG: "apiVersion: v1",
    };
    // The platform's identity for the workload: `aws eks get-token` or `gmsa-webhooks token` as a plugin needs it.
    const platform = {
      AWS_ACCESS_KEY_ID: "AKID",
      AWS_SECRET_ACCESS_KEY: "k",
      AWS_SESSION_TOKEN: "s",
      IDENTITY_HEADER: "h",
    };
    const env = buildPluginEnv(
      { ...base, provideClusterInfo: false, env: [{ name: "KUBECONFIG", value: "/explicit" }] },
      undefined,
      withoutPluginSecrets({ ...ours, ...platform, HOME: "/home/fn", PATH: "/usr/bin", AWS_REGION: "eu-west-1" }),
    );
    expect(Object.keys(env).sort()).toEqual(
      [...Object.keys(platform), "AWS_REGION", "HOME", "KUBECONFIG", "KUBERNETES_EXEC_INFO", "PATH"].sort(),
    );
    expect(env["KUBECONFIG"]).toBe("/explicit");
    const everyVariable = Object.fromEntries(Object.keys(VARIABLES).map((name) => [name, "set"]));
    const withheld = Object.keys(everyVariable).filter((name) => !(name in withoutPluginSecrets(everyVariable)));
    expect(new Set(withheld)).toEqual(
      new Set([...Object.keys(ours), ...Object.keys(VARIABLES).filter((n) => n.startsWith("CALLER_AUTH_"))]),
    );
  });

  it("reaches the plugin exactly as built", async () => {
    const dump = path.join(await tempDir(), "dump.json");
    const exec = {
      ...base,
      command: process.execPath,
      args: [pluginPath("token")],
      provideClusterInfo: true,
      env: [
        { name: "FAKE_FROM_CONFIG", value: "c" },
        { name: "DUMP_FILE", value: dump },
      ],
    };
    const tokens = createExecTokenSource({
      exec,
      cluster,
      runPlugin,
      baseEnv: { FAKE_FROM_PROCESS: "p", FAKE_FROM_CONFIG: "p" },
      shareInFlight: true,
    });
    await tokens.getCredential();
    const seen = JSON.parse(readFileSync(dump, "utf8")) as { execInfo: string; fake: Record<string, string> };
    expect(JSON.parse(seen.execInfo)).toEqual(buildExecInfo(exec, cluster));
    expect(seen.fake).toEqual({ FAKE_FROM_PROCESS: "p", FAKE_FROM_CONFIG: "c" });
  });
});
