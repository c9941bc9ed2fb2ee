/**
 * Throw-away certificates for the local HTTPS API server, generated with openssl at test time (no private keys
 * are committed): a CA, server certificates for 127.0.0.1/localhost and for kube.internal only, a client
 * certificate, and an unrelated CA the client must not trust.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface TestPki {
  caPem: string;
  otherCaPem: string;
  server: { cert: string; key: string };
  /** Valid only for DNS:kube.internal, to test tls-server-name. */
  internalServer: { cert: string; key: string };
  client: { cert: string; key: string };
  /** Signed by the other CA: the server must refuse it. */
  strangerClient: { cert: string; key: string };
  dir: string;
  cleanup(): Promise<void>;
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

async function makeCa(dir: string, name: string): Promise<void> {
  await run("openssl", [
    "req",
    "-x509",
    ...EC,
    "-keyout",
    `${dir}/${name}.key`,
    "-out",
    `${dir}/${name}.crt`,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
  ]);
}

async function makeLeaf(
  dir: string,
  ca: string,
  name: string,
  extensions: string,
): Promise<{ cert: string; key: string }> {
  const ext = `${dir}/${name}.ext`;
  await writeFile(ext, `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n${extensions}\n`);
  await run("openssl", [
    "req",
    "-new",
    ...EC,
    "-keyout",
    `${dir}/${name}.key`,
    "-out",
    `${dir}/${name}.csr`,
    "-subj",
    `/CN=${name}`,
  ]);
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    `${dir}/${name}.csr`,
    "-CA",
    `${dir}/${ca}.crt`,
    "-CAkey",
    `${dir}/${ca}.key`,
    // A serial of its own: -CAcreateserial shares ca.srl between the concurrent signings ("Unable to load number").
    "-set_serial",
    `0x${randomBytes(8).toString("hex")}`,
    "-out",
    `${dir}/${name}.crt`,
    "-days",
    "2",
    "-extfile",
    ext,
  ]);
  return { cert: await readFile(`${dir}/${name}.crt`, "utf8"), key: await readFile(`${dir}/${name}.key`, "utf8") };
}

/** Generates the whole set in a temporary folder. */
export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(path.join(tmpdir(), "gmsa-pki-"));
  await Promise.all([makeCa(dir, "ca"), makeCa(dir, "other-ca")]);
  const [server, internalServer, client, strangerClient] = await Promise.all([
    makeLeaf(dir, "ca", "server", "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost"),
    makeLeaf(dir, "ca", "internal", "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:kube.internal"),
    makeLeaf(dir, "ca", "client", "extendedKeyUsage=clientAuth"),
    makeLeaf(dir, "other-ca", "stranger", "extendedKeyUsage=clientAuth"),
  ]);
  return {
    caPem: await readFile(`${dir}/ca.crt`, "utf8"),
    otherCaPem: await readFile(`${dir}/other-ca.crt`, "utf8"),
    server,
    internalServer,
    client,
    strangerClient,
    dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
