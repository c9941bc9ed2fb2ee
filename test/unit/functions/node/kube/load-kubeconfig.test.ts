import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadNodeKubeTarget } from "../../../../../functions/node/kube/load-kubeconfig.ts";
import { KubeConfigurationError, parseKubeSettings } from "../../../../../shared/config/index.ts";
import { tempDir } from "../../../../support/temp-dir.ts";

const settings = (env: Record<string, string>) => parseKubeSettings(env).settings;

async function problems(promise: Promise<unknown>): Promise<readonly string[]> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(KubeConfigurationError);
  return (error as KubeConfigurationError).problems;
}

describe("loadNodeKubeTarget", () => {
  it("merges the KUBECONFIG list, skips missing files and resolves paths against each file", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "a"));
    await writeFile(path.join(dir, "a", "ca.crt"), "CA PEM");
    await writeFile(
      path.join(dir, "a", "config"),
      "current-context: main\nclusters: [{ name: c, cluster: { server: 'https://k', certificate-authority: ca.crt } }]\n",
    );
    await writeFile(
      path.join(dir, "b"),
      "contexts: [{ name: main, context: { cluster: c, user: u } }]\nusers: [{ name: u, user: { tokenFile: tok } }]\n",
    );
    const list = [path.join(dir, "a", "config"), path.join(dir, "missing"), path.join(dir, "b")].join(path.delimiter);
    const loaded = await loadNodeKubeTarget(settings({ KUBECONFIG: list }), { homeDir: dir });
    expect(loaded.caPem).toBe("CA PEM");
    expect(loaded.target.cluster.certificateAuthority).toBe(path.join(dir, "a", "ca.crt"));
    expect(loaded.target.auth).toEqual({ kind: "tokenFile", tokenFile: path.join(dir, "tok") });
    expect(loaded.warnings).toEqual([`kubeconfig "${path.join(dir, "missing")}" does not exist; skipped`]);
  });

  it("takes each name from the first KUBECONFIG file that defines it, and refuses a name repeated within one file", async () => {
    const dir = await tempDir();
    const first = path.join(dir, "first");
    const second = path.join(dir, "second");
    await writeFile(first, "clusters: [{ name: c, cluster: { server: 'https://first' } }]\n");
    await writeFile(
      second,
      "current-context: x\nclusters: [{ name: c, cluster: { server: 'https://second' } }]\ncontexts: [{ name: x, context: { cluster: c } }]\n",
    );
    const list = [first, second].join(path.delimiter);
    expect((await loadNodeKubeTarget(settings({ KUBECONFIG: list }), { homeDir: dir })).target.cluster.server).toBe(
      "https://first",
    );
    await writeFile(
      second,
      "current-context: x\ncontexts: [{ name: x, context: { cluster: c } }, { name: x, context: { cluster: d } }]\n",
    );
    expect(await problems(loadNodeKubeTarget(settings({ KUBECONFIG: list }), { homeDir: dir }))).toEqual([
      `${second}: contexts: the name "x" is defined more than once (kubectl refuses the file too)`,
    ]);
  });

  it("falls back to ~/.kube/config, then to the in-cluster service account", async () => {
    const home = await tempDir();
    await mkdir(path.join(home, ".kube"));
    await writeFile(
      path.join(home, ".kube", "config"),
      "current-context: x\nclusters: [{ name: c, cluster: { server: 'https://home' } }]\ncontexts: [{ name: x, context: { cluster: c } }]\n",
    );
    expect((await loadNodeKubeTarget(settings({}), { homeDir: home })).target.cluster.server).toBe("https://home");

    const sa = await tempDir();
    await writeFile(path.join(sa, "token"), "sa-token");
    await writeFile(path.join(sa, "ca.crt"), "SA CA");
    const inCluster = await loadNodeKubeTarget(
      settings({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }),
      { homeDir: sa, serviceAccountDir: sa },
    );
    expect(inCluster.target.cluster.server).toBe("https://[fd00::1]:443");
    expect(inCluster.caPem).toBe("SA CA");
    expect(inCluster.target.auth).toEqual({ kind: "tokenFile", tokenFile: path.join(sa, "token") });
  });

  it("says what is missing when there is no kubeconfig and no service account", async () => {
    const empty = await tempDir();
    expect(await problems(loadNodeKubeTarget(settings({}), { homeDir: empty }))).toEqual([
      "no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account",
    ]);
    expect(
      await problems(
        loadNodeKubeTarget(settings({ KUBERNETES_SERVICE_HOST: "h", KUBERNETES_SERVICE_PORT: "1" }), {
          homeDir: empty,
          serviceAccountDir: empty,
        }),
      ),
    ).toEqual([
      `in-cluster: no service account token in ${empty} (automountServiceAccountToken off?)`,
      `certificate-authority "${path.join(empty, "ca.crt")}" cannot be read (ENOENT)`,
    ]);
  });

  it("reads client certificate files and warns loudly about insecure-skip-tls-verify", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "c.crt"), "CERT");
    await writeFile(path.join(dir, "c.key"), "KEY");
    await writeFile(
      path.join(dir, "config"),
      "current-context: x\nclusters: [{ name: c, cluster: { server: 'https://k', insecure-skip-tls-verify: true } }]\nusers: [{ name: u, user: { client-certificate: c.crt, client-key: c.key } }]\ncontexts: [{ name: x, context: { cluster: c, user: u } }]\n",
    );
    const loaded = await loadNodeKubeTarget(settings({ KUBECONFIG: path.join(dir, "config") }));
    expect(loaded.clientCertificate).toEqual({ certificate: "CERT", key: "KEY" });
    expect(loaded.warnings).toEqual([
      'kubeconfig cluster "c": insecure-skip-tls-verify is set: the API server\'s certificate is NOT verified',
    ]);
  });

  it("accepts an http(s) proxy-url and refuses socks5", async () => {
    const dir = await tempDir();
    const config = (proxy: string) =>
      `current-context: x\nclusters: [{ name: c, cluster: { server: 'https://k', proxy-url: '${proxy}' } }]\ncontexts: [{ name: x, context: { cluster: c } }]\n`;
    await writeFile(path.join(dir, "http"), config("http://proxy:3128"));
    await writeFile(path.join(dir, "socks"), config("socks5://proxy:1080"));
    expect((await loadNodeKubeTarget(settings({ KUBECONFIG: path.join(dir, "http") }))).target.cluster.proxyUrl).toBe(
      "http://proxy:3128",
    );
    expect(await problems(loadNodeKubeTarget(settings({ KUBECONFIG: path.join(dir, "socks") })))).toEqual([
      'kubeconfig cluster "c": proxy-url must be http:// or https:// (socks5 is not supported)',
    ]);
  });
});
