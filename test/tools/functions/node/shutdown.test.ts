/** Graceful shutdown of the real `npm start` process (functions/node/index.ts) on SIGTERM. */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Agent } from "node:http";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { listeningPort } from "../../../support/listening-port.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";
import { serverlessEnv } from "../../../support/serverless-env.ts";
import { send } from "../../support/send.ts";

const ENTRY = path.resolve(import.meta.dirname, "../../../../functions/node/index.ts");
const DELAY_SECONDS = 1;

let child: ChildProcess | undefined;
afterAll(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
});

/** Starts `node functions/node/index.ts` and resolves with its port once it logs "listening". */
async function startServer(): Promise<{ port: number; exited: Promise<number | null>; stdout: string[] }> {
  // The API server is never called: the reviews here name no credspec.
  const env = {
    PATH: process.env["PATH"] ?? "",
    ...(await serverlessEnv({
      CALLER_AUTH: "none",
      CALLER_AUTH_TOKENS: undefined,
      PORT: "0",
      HOST: "127.0.0.1",
      SHUTDOWN_DELAY_SECONDS: String(DELAY_SECONDS),
    })),
  };
  const started = spawn(process.execPath, [ENTRY], { env, stdio: ["ignore", "pipe", "inherit"] });
  child = started;
  const stdout: string[] = [];
  createInterface({ input: started.stdout }).on("line", (line) => stdout.push(line));
  const exited = new Promise<number | null>((resolve) => started.once("exit", (code) => resolve(code)));
  return { port: await listeningPort(started), exited, stdout };
}

const JSON_TYPE = { "content-type": "application/json" };
const getText = (port: number, route: string) => send({ port, path: route });

describe("npm start on SIGTERM", () => {
  it("answers /readyz 503 at once, serves through the delay, finishes the review in flight and exits 0", async () => {
    const { port, exited, stdout } = await startServer();
    // Nothing answers at the kubeconfig's server, so the readiness check fails; shutting down is said apart from it.
    expect(await getText(port, "/readyz")).toMatchObject({ status: 503, text: "not ready: API server unreachable" });

    // A review whose upload is still going on when the server stops accepting, on a kept-alive connection.
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify(buildReview(buildPod(), { uid: "in-flight" }));
    let upload!: (rest: string) => void;
    const rest = new Promise<string>((resolve) => (upload = resolve));
    const inFlight = send(
      { port, method: "POST", path: "/expand", agent: keepAlive, headers: JSON_TYPE },
      { first: body.slice(0, 10), rest },
    );

    const signalledAt = Date.now();
    child?.kill("SIGTERM");
    // The signal is handled on the server's next turn.
    let ready = await getText(port, "/readyz");
    while (ready.text !== "shutting down" && Date.now() - signalledAt < 500) ready = await getText(port, "/readyz");
    expect(ready).toMatchObject({ status: 503, text: "shutting down" });
    expect(Date.now() - signalledAt).toBeLessThan(500);

    // Still serving during the delay: a new review on a new connection.
    const during = JSON.stringify(buildReview(buildPod(), { uid: "during-delay" }));
    expect((await send({ port, method: "POST", path: "/expand", headers: JSON_TYPE }, during)).status).toBe(200);

    // Past the delay the listener is closed: new connections are refused, the review in flight still completes.
    await new Promise((resolve) => setTimeout(resolve, DELAY_SECONDS * 1000 + 300));
    await expect(getText(port, "/healthz")).rejects.toThrow(/ECONNREFUSED/);
    upload(body.slice(10));
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({ response: { uid: "in-flight", allowed: true } });
    // The kept-alive connection is closed by the server once idle, so the process can exit.
    if (!answered.socket.destroyed) await once(answered.socket, "close");

    expect(await exited).toBe(0);
    keepAlive.destroy();
    const messages = stdout.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain("shutting down");
  });
});
