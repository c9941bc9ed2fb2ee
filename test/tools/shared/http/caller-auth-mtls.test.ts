import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readClientCertificate, serveApp } from "../../../../functions/node/server.ts";
import { readTlsMaterial } from "../../../../functions/node/tls-reload.ts";
import { issueClientCertificate, issueServingCertificate } from "../../../../infra/local/pki.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { gmsaReview } from "../../../support/reviews.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { createTestCa } from "../../../support/test-pki.ts";
import { send } from "../../support/send.ts";

let server: Awaited<ReturnType<typeof serveApp>>["server"];
let port: number;
let logged: () => string;
const pem: Record<string, string> = {};

/** One request over a fresh TLS connection, trusting our server's CA, with an optional client certificate. */
async function call(path: string, client?: string, method = "GET"): Promise<number> {
  const certificate = client === undefined ? {} : { cert: pem[`${client}.pem`], key: pem[`${client}.key`] };
  const headers = { "content-type": "application/json" };
  const options = { https: true, port, path, method, headers, ca: pem["server-ca.pem"], ...certificate };
  return (await send(options, method === "POST" ? gmsaReview() : undefined)).status;
}

beforeAll(async () => {
  const dir = await tempDir("gmsa-mtls-");
  const [serverCa, clientCa, otherCa] = await Promise.all([
    createTestCa(dir, "server-ca"),
    createTestCa(dir, "client-ca"),
    createTestCa(dir, "other-ca"),
  ]);
  const pairs = {
    server: await issueServingCertificate(serverCa, dir, "server", ["127.0.0.1", "localhost"]),
    apiserver: await issueClientCertificate(clientCa, dir, "apiserver", "kube-apiserver", "gmsa-tests"),
    intruder: await issueClientCertificate(clientCa, dir, "intruder", "intruder", "gmsa-tests"),
    forged: await issueClientCertificate(otherCa, dir, "forged", "kube-apiserver", "gmsa-tests"),
  };
  pem["server-ca.pem"] = serverCa.certPem;
  for (const [name, pair] of Object.entries(pairs)) {
    pem[`${name}.pem`] = pair.certPem;
    pem[`${name}.key`] = pair.keyPem;
  }
  const clientCaFile = clientCa.certFile;
  const { app, logger } = createCallerAuthTestApp(
    { mode: "mtls", clientCaFile, clientNames: ["kube-apiserver"] },
    { clientCertificate: readClientCertificate },
  );
  logged = () => logger.text();
  ({ server, port } = await serveApp(app, {
    port: 0,
    hostname: "127.0.0.1",
    tls: await readTlsMaterial({
      certFile: pairs.server.certFile,
      keyFile: pairs.server.keyFile,
      caFile: clientCaFile,
    }),
  }));
}, 30_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("caller auth: mtls through the Node HTTPS server", () => {
  it.each([
    ["accepts a certificate from the configured CA with an allowed name", "/authorize", "apiserver", 200],
    ["answers a caller without a certificate with a clean 401, not a TLS abort", "/authorize", undefined, 401],
    ["answers a verified certificate with a name not in CALLER_AUTH_CLIENT_NAMES with 403", "/expand", "intruder", 403],
  ])("%s", async (_, path, client, status) => {
    expect(await call(path, client, "POST")).toBe(status);
  });

  it("answers a certificate from another CA with 401, logging OpenSSL's reason", async () => {
    expect(await call("/authorize", "forged", "POST")).toBe(401);
    expect(logged()).toMatch(/"reason":"[A-Z_]+"/);
  });

  it("keeps /healthz, /version and /metrics reachable without a certificate (probes, Prometheus)", async () => {
    expect(await call("/healthz")).toBe(200);
    expect(await call("/version")).toBe(200);
    expect(await call("/metrics")).toBe(200);
  });
});
