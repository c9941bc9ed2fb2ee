/**
 * docs/install-container.md as an operator follows it: steps 1 to 3 run as written (with stand-ins for what needs
 * root or a cluster), then the server bundle with the settings they placed.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildNodeTarget } from "../../../infra/build/node/bundle-function.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import { parseKubeconfig } from "../../../shared/kubeconfig/kubeconfig.ts";
import { selectKubeTarget } from "../../../shared/kubeconfig/kube-target.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { writeWithClusterCa } from "./cluster-ca.ts";
import { readRepoFile, shellBlockWith } from "../../support/guide-text.ts";
import { startServerChild } from "../../support/listening-port.ts";
import { runBash, standIns } from "../../support/run-child.ts";
import { send } from "../support/send.ts";

const GUIDE = "docs/install-container.md";
const HOST = "gmsa.example.com";

/** KEY=VALUE lines of an env file, comments left out. */
function parseEnvFile(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));
}

/** GET over HTTPS to 127.0.0.1, trusting only `ca` and checking the certificate against `servername`. */
const getTrusting = (port: number, route: string, ca: string, servername: string) =>
  send({ https: true, port, path: route, ca, servername });

/** `/etc/gmsa-webhooks` as the guide names it; the test runs the guide with it inside a temporary folder. */
const ETC = "/etc/gmsa-webhooks";

/**
 * Stand-ins for what needs root or a cluster: `sudo` runs the command as this user, with `useradd` skipped and
 * install's owner and group options dropped (only root may set them); `kubectl create token <sa>` prints a token.
 */
const STAND_INS = {
  sudo: '#!/bin/bash\n[ "$1" = useradd ] && exit 0\nargs=()\nwhile [ $# -gt 0 ]; do case "$1" in -o|-g) shift 2;; *) args+=("$1"); shift;; esac; done\nexec "${args[@]}"\n',
  kubectl: '#!/bin/sh\necho "token-for-$3"\n',
};

/** The `sh` blocks of steps 1 to 3 that make the CA, the folders and every file in them, in the guide's order. */
const SETUP_MARKERS = [
  "install -d",
  "-keyout ca-key.pem",
  `${ETC}/tls/tls.key`,
  "kubectl create token",
  "gmsa-webhooks.env.example",
];

describe(GUIDE, () => {
  it("creates the folders and puts every file where the placed settings, kubeconfigs and systemd unit read it", async () => {
    const dir = await tempDir("gmsa-container-guide-");
    const etc = path.join(dir, ETC);
    const atRoot = (text: string) => text.replaceAll(ETC, etc);
    const PATH = await standIns(dir, STAND_INS);
    await mkdir(path.join(dir, "infra/deploy/standalone"), { recursive: true });
    for (const file of [
      "infra/deploy/standalone/kubeconfig.example.yaml",
      "infra/deploy/standalone/gmsa-webhooks.env.example",
    ]) {
      await writeFile(path.join(dir, file), atRoot(await readRepoFile(file)));
    }
    const guide = await readRepoFile(GUIDE);
    const script = SETUP_MARKERS.map((marker) => atRoot(shellBlockWith(guide, marker))).join("\n");
    await runBash(script, { cwd: dir, env: { PATH } });

    const mode = async (file: string) => (await stat(path.join(etc, file))).mode & 0o777;
    expect(await mode(".")).toBe(0o755);
    for (const folder of ["tls", "expand", "authorize"]) expect(await mode(folder), folder).toBe(0o750);
    expect(await mode("tls/tls.crt")).toBe(0o644);
    expect(await mode("tls/tls.key")).toBe(0o640);
    const unit = await readRepoFile("infra/deploy/standalone/gmsa-webhooks@.service");
    for (const [fn, port] of [
      ["expand", "8443"],
      ["authorize", "8444"],
    ] as const) {
      for (const [file, expected] of [
        ["kubeconfig.yaml", 0o640],
        ["token", 0o640],
        ["gmsa-webhooks.env", 0o644],
        ["caller-secrets.env", 0o600],
      ] as const) {
        expect(await mode(`${fn}/${file}`), `${fn}/${file}`).toBe(expected);
      }
      const settings = parseEnvFile(await readFile(path.join(etc, fn, "gmsa-webhooks.env"), "utf8"));
      expect(settings).toMatchObject({ FUNCTIONS: fn, PORT: port, KUBECONFIG: `${etc}/${fn}/kubeconfig.yaml` });
      for (const name of ["TLS_CERT_FILE", "TLS_KEY_FILE", "KUBECONFIG"])
        await expect(stat(settings[name]!), `${fn}: ${name}`).resolves.toBeDefined();
      const kubeconfig = parseKubeconfig(await readFile(settings["KUBECONFIG"]!, "utf8"), {
        source: `${fn}/kubeconfig.yaml`,
      });
      expect(kubeconfig.problems).toEqual([]);
      const auth = selectKubeTarget(kubeconfig.config!).target?.auth;
      expect(auth).toEqual({ kind: "tokenFile", tokenFile: `${etc}/${fn}/token` });
      expect(await readFile(`${etc}/${fn}/token`, "utf8")).toBe(`token-for-gmsa-${fn}\n`);
      expect(await readFile(path.join(etc, fn, "caller-secrets.env"), "utf8")).toMatch(
        /^CALLER_AUTH_TOKENS=[A-Za-z0-9+/=]{44}\n$/,
      );
      for (const [, file] of unit.matchAll(/^EnvironmentFile=(\S+)$/gm))
        await expect(stat(atRoot(file!.replace("%i", fn)))).resolves.toBeDefined();
    }

    // The server as the unit starts it, with the placed expand settings (on a free loopback port), the cluster's CA
    // put in its kubeconfig as step 2 says.
    const ca = await readFile(path.join(dir, "ca.pem"), "utf8");
    await writeWithClusterCa(path.join(etc, "expand/kubeconfig.yaml"), undefined, ca);
    await buildNodeTarget("server", path.join(dir, "dist", "node"));
    const env = {
      ...parseEnvFile(await readFile(path.join(etc, "expand/gmsa-webhooks.env"), "utf8")),
      ...parseEnvFile(await readFile(path.join(etc, "expand/caller-secrets.env"), "utf8")),
      HOST: "127.0.0.1",
      PORT: "0",
      PATH: process.env["PATH"],
    };
    const server = await startServerChild(["dist/node/server.mjs"], { cwd: dir, env });
    try {
      expect(await getTrusting(server.port, "/healthz", ca, HOST)).toMatchObject({ status: 200, text: "ok" });
      // The name is checked: the same certificate is refused for another host.
      await expect(getTrusting(server.port, "/healthz", ca, "other.example.com")).rejects.toThrow(/altnames|Hostname/);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("runs the systemd unit on the checkout's Node with npm start's flags and bundle", async () => {
    const unit = await readRepoFile("infra/deploy/standalone/gmsa-webhooks@.service");
    const start = (
      JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
    ).scripts.start;
    const execStart = /^ExecStart=(\S+) (.*)$/m.exec(unit);
    expect(execStart?.[1]).toBe("/opt/gmsa-webhooks/node_modules/.bin/node");
    expect(`node ${execStart?.[2]}`).toBe(start);
    expect(unit).toMatch(/^WorkingDirectory=\/opt\/gmsa-webhooks$/m);
  });
});
