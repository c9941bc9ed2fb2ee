/**
 * Certificate renewal on a running Node server, the way the kubelet updates a Secret volume: the new files go into
 * a new folder and the `..data` symlink is swapped atomically. Then CALLER_AUTH=mtls's client CA, rewritten in place.
 */
import { X509Certificate } from "node:crypto";
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { Agent } from "node:https";
import path from "node:path";
import type { Socket } from "node:net";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodeServer } from "../../../../functions/node/server.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";
import { serverlessEnv } from "../../../support/serverless-env.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { createTestPki, type TestPki } from "../../../support/test-pki.ts";
import { send } from "../../support/send.ts";

type RunningServer = Awaited<ReturnType<typeof startNodeServer>>;

let pki: TestPki;
let dir: string;
let running: RunningServer;
const logs: string[] = [];
let generation = 0;

/** Writes a new `..<n>` folder and swaps `..data` to it with one rename, as the kubelet's atomic writer does. */
async function publish(pair: { cert: string; key: string }): Promise<void> {
  const folder = `..${++generation}`;
  await mkdir(path.join(dir, folder));
  await writeFile(path.join(dir, folder, "tls.crt"), pair.cert);
  await writeFile(path.join(dir, folder, "tls.key"), pair.key, { mode: 0o600 });
  await symlink(folder, path.join(dir, "..data_tmp"));
  await rename(path.join(dir, "..data_tmp"), path.join(dir, "..data"));
}

/** The SHA-256 fingerprint a new TLS connection to the server is shown. */
function servedFingerprint(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: running.port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once("error", reject);
  });
}

const fingerprintOf = (cert: string) => new X509Certificate(cert).fingerprint256;

/** One HTTPS request to `route` on `port`, any certificate accepted; a `body` whose `rest` is held back until it resolves. */
const sendTo = (
  port: number,
  route: string,
  options: { method?: string; agent?: Agent; cert?: string; key?: string } = {},
  body?: { first: string; rest: Promise<string> },
) => {
  const headers = { "content-type": "application/json" };
  return send({ https: true, port, path: route, rejectUnauthorized: false, headers, ...options }, body);
};

/** The log lines with `msg`, once there are `count` of them (or after 10 s). */
async function logged(msg: string, count = 1, from: string[] = logs): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = from
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry["msg"] === msg);
    if (lines.length >= count || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A server's settings: the certificate files of `dir`, and `callerAuth`. The API server is never called: the reviews here name no credspec. */
const serverEnv = (callerAuth: Record<string, string>) =>
  serverlessEnv({
    CALLER_AUTH_TOKENS: undefined,
    PORT: "0",
    HOST: "127.0.0.1",
    TLS_CERT_FILE: path.join(dir, "tls.crt"),
    TLS_KEY_FILE: path.join(dir, "tls.key"),
    ...callerAuth,
  });

beforeAll(async () => {
  pki = await createTestPki();
  dir = await tempDir("gmsa-tls-reload-");
  await publish(pki.server);
  await symlink("..data/tls.crt", path.join(dir, "tls.crt"));
  await symlink("..data/tls.key", path.join(dir, "tls.key"));
  running = await startNodeServer(await serverEnv({ CALLER_AUTH: "none" }), (line) => logs.push(line));
});

afterAll(async () => {
  await running?.close();
  await pki?.cleanup();
});

describe("certificate reload", () => {
  it("serves a renewed certificate to new connections while a request in flight completes, without a restart", async () => {
    const server = running.server;
    expect(await servedFingerprint()).toBe(fingerprintOf(pki.server.cert));

    // A review whose body is still being uploaded when the certificate changes.
    const body = JSON.stringify(buildReview(buildPod(), { uid: "in-flight" }));
    const rest = logged("TLS certificate reloaded").then(() => body.slice(20));
    const reply = sendTo(running.port, "/expand", { method: "POST" }, { first: body.slice(0, 20), rest });

    await publish(pki.internalServer);
    const reloaded = await logged("TLS certificate reloaded");
    expect(reloaded).toHaveLength(1);
    expect(reloaded[0]).toMatchObject({ fingerprint256: fingerprintOf(pki.internalServer.cert) });

    const answered = await reply;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({ response: { uid: "in-flight", allowed: true } });
    // The connection kept the certificate it was opened with.
    expect(answered.fingerprint).toBe(fingerprintOf(pki.server.cert));
    expect(await servedFingerprint()).toBe(fingerprintOf(pki.internalServer.cert));
    expect(running.server).toBe(server);
    expect(server.listening).toBe(true);
  });

  it("refuses a certificate and key that do not match, and keeps serving the last good certificate", async () => {
    await publish({ cert: pki.server.cert, key: pki.internalServer.key });
    const refused = await logged("TLS certificate and key refused; keeping the current certificate");
    expect(refused).toHaveLength(1);
    expect(refused[0]?.["level"]).toBe("error");
    expect(String(refused[0]?.["error"])).toMatch(/^ERR_OSSL_/);
    expect(await servedFingerprint()).toBe(fingerprintOf(pki.internalServer.cert));
    expect(logs.join("\n")).not.toContain("PRIVATE KEY");
    expect(logs.join("\n")).not.toContain("BEGIN CERTIFICATE");

    await publish(pki.server);
    expect(await logged("TLS certificate reloaded", 2)).toHaveLength(2);
    expect(await servedFingerprint()).toBe(fingerprintOf(pki.server.cert));
  });
});

describe("client CA reload (CALLER_AUTH=mtls)", () => {
  /** A server with CALLER_AUTH=mtls trusting `pki.caPem` from a file the test may rewrite. */
  async function startMtlsServer(): Promise<{ mtls: RunningServer; caFile: string; mtlsLogs: string[] }> {
    const caFile = path.join(await tempDir("gmsa-tls-ca-"), "client-ca.pem");
    await writeFile(caFile, pki.caPem);
    const mtlsLogs: string[] = [];
    const env = await serverEnv({ CALLER_AUTH: "mtls", CALLER_AUTH_CLIENT_CA_FILE: caFile });
    return { mtls: await startNodeServer(env, (line) => mtlsLogs.push(line)), caFile, mtlsLogs };
  }

  it("trusts client certificates of the new CA and no longer those of the old one, without a restart", async () => {
    const { mtls, caFile, mtlsLogs } = await startMtlsServer();
    // GET on a review route: 405 once the caller is authenticated, 401 before.
    const callerStatus = async (client: { cert: string; key: string }) =>
      (await sendTo(mtls.port, "/authorize", client)).status;
    try {
      expect(await callerStatus(pki.client)).toBe(405);
      expect(await callerStatus(pki.strangerClient)).toBe(401);
      // Rewritten in place, as a plain file (not a Secret volume).
      await writeFile(caFile, pki.otherCaPem);
      expect(await logged("TLS certificate reloaded", 1, mtlsLogs)).toHaveLength(1);
      expect(await callerStatus(pki.strangerClient)).toBe(405);
      expect(await callerStatus(pki.client)).toBe(401);
    } finally {
      await mtls.close();
    }
  });

  it("closes the connections accepted under the previous CA: an idle one at once, a busy one once it is answered", async () => {
    const { mtls, caFile, mtlsLogs } = await startMtlsServer();
    // One kept-alive connection per agent, authenticated with the old CA's client certificate.
    const agents = [0, 1].map(
      () => new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, ...pki.client }),
    );
    const get = (agent: Agent) => sendTo(mtls.port, "/authorize", { agent });
    /** Whether the server closes `socket` within 2 s. */
    const closed = (socket: Socket) =>
      new Promise<boolean>((resolve) => {
        if (socket.destroyed) return resolve(true);
        socket.once("close", () => resolve(true));
        setTimeout(() => resolve(false), 2_000);
      });
    try {
      const [idleAgent, busyAgent] = agents as [Agent, Agent];
      const idle = await get(idleAgent);
      expect(idle.status).toBe(405);
      const again = await get(idleAgent);
      expect(again.status).toBe(405);
      expect(again.socket).toBe(idle.socket);
      const busyBefore = await get(busyAgent);

      // A review whose body is still being uploaded when the CA changes.
      const review = JSON.stringify(buildReview(buildPod(), { uid: "in-flight" }));
      const rotated = logged("TLS certificate reloaded", 1, mtlsLogs);
      const busy = sendTo(
        mtls.port,
        "/authorize",
        { method: "POST", agent: busyAgent },
        { first: review.slice(0, 20), rest: rotated.then(() => review.slice(20)) },
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await writeFile(caFile, pki.otherCaPem);
      expect(await rotated).toHaveLength(1);

      // The idle connection is closed at once; the busy one gets its answer, told the connection closes, then closes.
      expect(await closed(idle.socket), "the idle connection is closed").toBe(true);
      const answered = await busy;
      expect(answered.status).toBe(200);
      expect(answered.socket).toBe(busyBefore.socket);
      expect(answered.headers.connection).toBe("close");
      expect(await closed(answered.socket), "the busy connection is closed once answered").toBe(true);
    } finally {
      for (const agent of agents) agent.destroy();
      await mtls.close();
    }
  });
});
