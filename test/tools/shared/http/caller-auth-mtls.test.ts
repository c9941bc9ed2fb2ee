import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readClientCertificate, serveApp } from "../../../../functions/node/server.ts";
import { readTlsMaterial } from "../../../../functions/node/tls-reload.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { gmsaReview } from "../../../support/reviews.ts";

const run = promisify(execFile);
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

let dir: string;
let server: Awaited<ReturnType<typeof serveApp>>["server"];
let port: number;
let logged: () => string;
const pem: Record<string, Buffer> = {};

/** A self-signed CA: `<name>.pem`, `<name>.key`. */
async function createCa(name: string): Promise<void> {
  await run("openssl", [
    "req",
    "-x509",
    ...EC_KEY,
    "-keyout",
    join(dir, `${name}.key`),
    "-out",
    join(dir, `${name}.pem`),
    "-days",
    "1",
    "-subj",
    `/CN=${name}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
}

/** A leaf certificate for `cn` signed by `ca`, with its extensions given as `-addext` values. */
async function createLeaf(name: string, cn: string, ca: string, extensions: string[]): Promise<void> {
  const csr = join(dir, `${name}.csr`);
  await run("openssl", [
    "req",
    "-new",
    ...EC_KEY,
    "-keyout",
    join(dir, `${name}.key`),
    "-out",
    csr,
    "-subj",
    `/CN=${cn}`,
    ...extensions.flatMap((ext) => ["-addext", ext]),
  ]);
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    join(dir, `${ca}.pem`),
    "-CAkey",
    join(dir, `${ca}.key`),
    "-set_serial",
    String(Date.now()),
    "-days",
    "1",
    "-copy_extensions",
    "copy",
    "-out",
    join(dir, `${name}.pem`),
  ]);
}

/** One request over a fresh TLS connection, trusting our server's CA, with an optional client certificate. */
function call(path: string, client?: string, method = "GET"): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent: false,
        ca: pem["server-ca.pem"],
        ...(client === undefined ? {} : { cert: pem[`${client}.pem`], key: pem[`${client}.key`] }),
        headers: { "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(method === "POST" ? gmsaReview() : undefined);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gmsa-mtls-"));
  await Promise.all([createCa("server-ca"), createCa("client-ca"), createCa("other-ca")]);
  await Promise.all([
    createLeaf("server", "localhost", "server-ca", [
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "extendedKeyUsage=serverAuth",
    ]),
    createLeaf("apiserver", "kube-apiserver", "client-ca", ["extendedKeyUsage=clientAuth"]),
    createLeaf("intruder", "intruder", "client-ca", ["extendedKeyUsage=clientAuth"]),
    createLeaf("forged", "kube-apiserver", "other-ca", ["extendedKeyUsage=clientAuth"]),
  ]);
  for (const name of ["server-ca", "apiserver", "intruder", "forged"]) {
    pem[`${name}.pem`] = await readFile(join(dir, `${name}.pem`));
    pem[`${name}.key`] = await readFile(join(dir, `${name}.key`));
  }
  const clientCaFile = join(dir, "client-ca.pem");
  const { app, logger } = createCallerAuthTestApp(
    { mode: "mtls", clientCaFile, clientNames: ["kube-apiserver"] },
    { clientCertificate: readClientCertificate },
  );
  logged = () => logger.text();
  ({ server, port } = await serveApp(app, {
    port: 0,
    hostname: "127.0.0.1",
    tls: await readTlsMaterial({
      certFile: join(dir, "server.pem"),
      keyFile: join(dir, "server.key"),
      caFile: clientCaFile,
    }),
  }));
}, 30_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe("caller auth: mtls through the Node HTTPS server", () => {
  it("accepts a certificate from the configured CA with an allowed name", async () => {
    expect(await call("/authorize", "apiserver", "POST")).toBe(200);
  });

  it("answers a caller without a certificate with a clean 401, not a TLS abort", async () => {
    expect(await call("/authorize", undefined, "POST")).toBe(401);
  });

  it("answers a certificate from another CA with 401, logging OpenSSL's reason", async () => {
    expect(await call("/authorize", "forged", "POST")).toBe(401);
    expect(logged()).toMatch(/"reason":"[A-Z_]+"/);
  });

  it("answers a verified certificate with a name not in CALLER_AUTH_CLIENT_NAMES with 403", async () => {
    expect(await call("/expand", "intruder", "POST")).toBe(403);
  });

  it("keeps /healthz, /version and /metrics reachable without a certificate (probes, Prometheus)", async () => {
    expect(await call("/healthz")).toBe(200);
    expect(await call("/version")).toBe(200);
    expect(await call("/metrics")).toBe(200);
  });
});
