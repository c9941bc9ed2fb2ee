/**
 * Certificates for the local cluster, made with the `openssl` command line (node:crypto
 * cannot issue X.509 certificates). Every call passes an argument array: no shell.
 */
import { execFile } from "node:child_process";
import { generateKeyPair, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const generateRsaKeyPair = promisify(generateKeyPair);

/** Certificates live as long as a test run; a day leaves room for a long `up` session. */
const VALIDITY_DAYS = "2";

/** A certificate and its private key, as files and as PEM text. */
export interface CertificatePair {
  certFile: string;
  keyFile: string;
  certPem: string;
  keyPem: string;
}

/** Where a cluster's CA lives; the key never leaves the cluster's temporary folder. */
export interface CertificateAuthority {
  certFile: string;
  keyFile: string;
  certPem: string;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run("openssl", args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`openssl ${args[0] ?? ""} failed: ${stderr.trim()}`, { cause: error });
  }
}

/** P-256 keys: accepted by Go (kube-apiserver, etcd) and Node's TLS alike, and fast to make. */
async function generateKey(keyFile: string): Promise<void> {
  await openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyFile]);
}

/** Random positive serials, so two certificates for the same name never collide in a client's cache. */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return `0x${bytes.toString("hex")}`;
}

/**
 * Creates a self-signed CA in `dir` (`ca.crt`, `ca.key`).
 * @throws Error with openssl's message when openssl fails.
 */
export async function createCertificateAuthority(dir: string, commonName: string): Promise<CertificateAuthority> {
  const certFile = join(dir, "ca.crt");
  const keyFile = join(dir, "ca.key");
  const csrFile = join(dir, "ca.csr");
  const extFile = join(dir, "ca.ext");
  await generateKey(keyFile);
  await writeFile(
    extFile,
    "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n",
  );
  await openssl(["req", "-new", "-key", keyFile, "-subj", `/CN=${commonName}`, "-out", csrFile]);
  await openssl([
    ...["x509", "-req", "-in", csrFile, "-signkey", keyFile, "-days", VALIDITY_DAYS],
    ...["-set_serial", serial(), "-extfile", extFile, "-out", certFile],
  ]);
  return { certFile, keyFile, certPem: await readFile(certFile, "utf8") };
}

/**
 * Issues a TLS serving certificate signed by `ca`, with `hosts` as subject alternative names
 * (IP addresses become `IP:` entries, anything else `DNS:`). Files are written to
 * `dir/<baseName>.crt` and `dir/<baseName>.key`.
 * @throws Error when `hosts` is empty or openssl fails.
 */
export async function issueServingCertificate(
  ca: CertificateAuthority,
  dir: string,
  baseName: string,
  hosts: string[],
): Promise<CertificatePair> {
  if (hosts.length === 0) throw new Error("issueServingCertificate needs at least one host");
  const certFile = join(dir, `${baseName}.crt`);
  const keyFile = join(dir, `${baseName}.key`);
  const csrFile = join(dir, `${baseName}.csr`);
  const extFile = join(dir, `${baseName}.ext`);
  const sans = hosts.map((host) => (/^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`)).join(",");
  await generateKey(keyFile);
  await writeFile(
    extFile,
    [
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      `subjectAltName=${sans}`,
      "authorityKeyIdentifier=keyid",
      "",
    ].join("\n"),
  );
  await openssl(["req", "-new", "-key", keyFile, "-subj", `/CN=${hosts[0]}`, "-out", csrFile]);
  await openssl([
    ...["x509", "-req", "-in", csrFile, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-days", VALIDITY_DAYS],
    ...["-set_serial", serial(), "-extfile", extFile, "-out", certFile],
  ]);
  return {
    certFile,
    keyFile,
    certPem: await readFile(certFile, "utf8"),
    keyPem: await readFile(keyFile, "utf8"),
  };
}

/**
 * Issues a TLS client certificate signed by `ca` for user `commonName` in `organization` (the groups Kubernetes
 * reads from O), written to `dir/<baseName>.crt` and `.key`.
 * @throws Error when openssl fails.
 */
export async function issueClientCertificate(
  ca: CertificateAuthority,
  dir: string,
  baseName: string,
  commonName: string,
  organization: string,
): Promise<CertificatePair> {
  const certFile = join(dir, `${baseName}.crt`);
  const keyFile = join(dir, `${baseName}.key`);
  const csrFile = join(dir, `${baseName}.csr`);
  const extFile = join(dir, `${baseName}.ext`);
  await generateKey(keyFile);
  await writeFile(
    extFile,
    "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
  );
  await openssl(["req", "-new", "-key", keyFile, "-subj", `/O=${organization}/CN=${commonName}`, "-out", csrFile]);
  await openssl([
    ...["x509", "-req", "-in", csrFile, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-days", VALIDITY_DAYS],
    ...["-set_serial", serial(), "-extfile", extFile, "-out", certFile],
  ]);
  return { certFile, keyFile, certPem: await readFile(certFile, "utf8"), keyPem: await readFile(keyFile, "utf8") };
}

/**
 * Writes the service-account token signing key pair (`sa.key`, `sa.pub`): RSA, because every
 * JWT verifier (and kube-apiserver's own default algorithm, RS256) handles it.
 */
export async function createServiceAccountKeys(
  dir: string,
): Promise<{ privateKeyFile: string; publicKeyFile: string }> {
  const { privateKey, publicKey } = await generateRsaKeyPair("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const privateKeyFile = join(dir, "sa.key");
  const publicKeyFile = join(dir, "sa.pub");
  await writeFile(privateKeyFile, privateKey, { mode: 0o600 });
  await writeFile(publicKeyFile, publicKey);
  return { privateKeyFile, publicKeyFile };
}
