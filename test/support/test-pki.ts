/**
 * Throw-away certificates for tests, made by the local cluster's certificate factory (`infra/local/pki.ts`, openssl
 * at test time; no private keys are committed): a CA, server certificates for 127.0.0.1/localhost and for
 * kube.internal only, a client certificate, and an unrelated CA the client must not trust.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  type CertificateAuthority,
  type CertificatePair,
} from "../../infra/local/pki.ts";

/** A CA of its own in `dir/<name>/`: the factory names every CA `ca.crt`. */
export async function createTestCa(dir: string, name: string): Promise<CertificateAuthority> {
  await mkdir(path.join(dir, name));
  return createCertificateAuthority(path.join(dir, name), name);
}

function pem(pair: CertificatePair): { cert: string; key: string } {
  return { cert: pair.certPem, key: pair.keyPem };
}

/** Generates the whole set in a temporary folder. */
export async function createTestPki() {
  const dir = await mkdtemp(path.join(tmpdir(), "gmsa-pki-"));
  const [ca, otherCa] = await Promise.all([createTestCa(dir, "ca"), createTestCa(dir, "other-ca")]);
  const [server, internalServer, client, strangerClient] = await Promise.all([
    issueServingCertificate(ca, dir, "server", ["127.0.0.1", "localhost"]),
    issueServingCertificate(ca, dir, "internal", ["kube.internal"]),
    issueClientCertificate(ca, dir, "client", "client", "gmsa-tests"),
    issueClientCertificate(otherCa, dir, "stranger", "stranger", "gmsa-tests"),
  ]);
  return {
    caPem: ca.certPem,
    otherCaPem: otherCa.certPem,
    server: pem(server),
    /** Valid only for DNS:kube.internal, to test tls-server-name. */
    internalServer: pem(internalServer),
    client: pem(client),
    /** Signed by the other CA: the server must refuse it. */
    strangerClient: pem(strangerClient),
    dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The set {@link createTestPki} makes: PEM certificates and keys, their folder and its `cleanup`. */
export type TestPki = Awaited<ReturnType<typeof createTestPki>>;
