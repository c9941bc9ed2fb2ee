/**
 * docs/install-container.md as an operator follows it: the guide's CA and certificate commands run as written, and
 * the server bundle, configured with infra/standalone/gmsa-webhooks.env.example, serves HTTPS that a client
 * trusting only that CA accepts for the URL's host; the example kubeconfig and systemd unit agree with the server.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { buildNodeTarget } from "../../../infra/node/bundle-function.ts";
import { REPO_ROOT } from "../../../infra/repo-root.ts";
import { parseKubeconfig } from "../../../shared/kubeconfig/kubeconfig.ts";
import { selectKubeTarget } from "../../../shared/kubeconfig/kube-target.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { readRepoFile, shellBlockWith } from "../../support/guide-text.ts";

const run = promisify(execFile);
const GUIDE = "docs/install-container.md";
const HOST = "gmsa.example.com";

/** KEY=VALUE lines of an env file, comments left out. */
function parseEnvFile(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));
}

/** GET over HTTPS to 127.0.0.1, trusting only `ca` and checking the certificate against `servername`. */
async function getTrusting(port: number, pathname: string, ca: string, servername: string): Promise<{ status: number; body: string }> {
  const req = request({ host: "127.0.0.1", port, path: pathname, ca, servername, agent: false });
  req.end();
  const [res] = (await once(req, "response")) as [IncomingMessage];
  let body = "";
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode!, body };
}

describe(GUIDE, () => {
  it("serves /healthz over HTTPS with the guide's certificate, to a client trusting only the guide's CA, for the URL's host", async () => {
    const dir = await tempDir("gmsa-container-guide-");
    await run("bash", ["-euo", "pipefail", "-c", shellBlockWith(await readRepoFile(GUIDE), "-keyout ca-key.pem")], { cwd: dir });
    const ca = await readFile(path.join(dir, "ca.pem"), "utf8");
    await buildNodeTarget("server", path.join(dir, "dist", "node"));
    // The example settings with this folder's files in place of /etc/gmsa-webhooks, and a free loopback port.
    const example = await readRepoFile("infra/standalone/kubeconfig.example.yaml");
    await writeFile(path.join(dir, "token"), "token-for-the-container-guide-test\n");
    await writeFile(path.join(dir, "kubeconfig.yaml"), example.replace(/tokenFile: \S+/, `tokenFile: ${path.join(dir, "token")}`).replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${Buffer.from(ca).toString("base64")}`));
    const settings = parseEnvFile(await readRepoFile("infra/standalone/gmsa-webhooks.env.example"));
    expect(settings).toMatchObject({ FUNCTIONS: "expand", CALLER_AUTH: "bearer" });
    const env = {
      ...settings,
      TLS_CERT_FILE: path.join(dir, "tls.crt"),
      TLS_KEY_FILE: path.join(dir, "tls.key"),
      KUBECONFIG: path.join(dir, "kubeconfig.yaml"),
      CALLER_AUTH_TOKENS: "caller-token-for-the-container-guide",
      HOST: "127.0.0.1",
      PORT: "0",
      PATH: process.env["PATH"],
    };
    const child = spawn(process.execPath, ["dist/node/server.mjs"], { cwd: dir, env, stdio: ["ignore", "pipe", "inherit"] });
    const ended = once(child, "exit");
    try {
      const port = await new Promise<number>((resolve, reject) => {
        createInterface({ input: child.stdout }).on("line", (line) => {
          const entry = line.startsWith("{") ? (JSON.parse(line) as { msg?: string; port?: number }) : {};
          if (entry.msg === "listening" && entry.port !== undefined) resolve(entry.port);
        });
        child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
      });
      expect(await getTrusting(port, "/healthz", ca, HOST)).toEqual({ status: 200, body: "ok" });
      // The name is checked: the same certificate is refused for another host.
      await expect(getTrusting(port, "/healthz", ca, "other.example.com")).rejects.toThrow(/altnames|Hostname/);
    } finally {
      child.kill("SIGTERM");
      await ended;
    }
  }, 60_000);

  it("gives the server a kubeconfig user whose token is a file it re-reads", async () => {
    const text = await readRepoFile("infra/standalone/kubeconfig.example.yaml");
    const parsed = parseKubeconfig(text, { source: "kubeconfig.example.yaml" });
    expect(parsed.problems).toEqual([]);
    const { target, problems } = selectKubeTarget(parsed.config!);
    expect(problems).toEqual([]);
    expect(target?.auth.kind).toBe("tokenFile");
  });

  it("runs the systemd unit on the checkout's Node with npm start's flags and bundle", async () => {
    const unit = await readRepoFile("infra/standalone/gmsa-webhooks@.service");
    const start = (JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
    const execStart = /^ExecStart=(\S+) (.*)$/m.exec(unit);
    expect(execStart?.[1]).toBe("/opt/gmsa-webhooks/node_modules/.bin/node");
    expect(`node ${execStart?.[2]}`).toBe(start);
    expect(unit).toMatch(/^WorkingDirectory=\/opt\/gmsa-webhooks$/m);
  });
});
