/**
 * Certificates and readiness of each registered function. The caBundle is parsed here; for a URL the doctor connects
 * itself (the caBundle as the only CA), which says what it sees from where it runs, not what the API server sees.
 * For a service reference the API server verifies what the Service serves: the end-to-end probe (probe.ts) names
 * those x509 failures; here the function's /readyz is read through the API server's service proxy.
 */
import { X509Certificate } from "node:crypto";
import { request } from "node:https";
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from "node:tls";
import { finding, statusMessage, type DoctorCluster, type Finding } from "./findings.ts";
import type { FoundWebhook } from "./webhooks.ts";

/** Certificates expiring sooner than this are warned about. */
export const RENEWAL_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;
const TIMEOUT_MS = 5000;

/** The URL with a path secret (anything after /expand or /authorize) masked. */
export function maskUrl(url: string, fn: string): string {
  return url.replace(new RegExp(`(/${fn})/[^?#]+`), "$1/***");
}

/** The certificates of a base64 caBundle, or undefined when it holds none that parse. */
export function parseCaBundle(caBundle: string): X509Certificate[] | undefined {
  const pem = Buffer.from(caBundle, "base64").toString("utf8");
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    const certificates = blocks.map((block) => new X509Certificate(block));
    return certificates.length === 0 ? undefined : certificates;
  } catch {
    return undefined;
  }
}

/** Expired: fail; inside the renewal window: warn; else undefined. */
function expiry(check: string, what: string, validTo: string, now: number, fix: string): Finding | undefined {
  const end = Date.parse(validTo);
  if (end <= now) return finding(check, "fail", `${what} expired on ${new Date(end).toISOString()}`, fix);
  const days = Math.floor((end - now) / DAY_MS);
  if (days >= RENEWAL_WINDOW_DAYS) return undefined;
  const when = `${days} ${days === 1 ? "day" : "days"} (${new Date(end).toISOString()})`;
  return finding(check, "warn", `${what} expires in ${when}, inside the ${RENEWAL_WINDOW_DAYS}-day renewal window`, fix);
}

/** Checks a webhook's caBundle: present where needed, parseable, not expired nor about to. */
export function checkCaBundle({ fn, configName, webhook }: FoundWebhook, now: number): Finding[] {
  const check = `certificates/${fn}`;
  const caBundle = webhook.clientConfig?.caBundle;
  const fix = `put the current CA's base64 PEM into the caBundle of ${configName} (docs/operations.md, Certificates)`;
  if (caBundle === undefined || caBundle === "") {
    if (webhook.clientConfig?.url !== undefined) return [finding(check, "pass", `${configName}: no caBundle, the API server trusts its system roots for the URL`)];
    return [finding(check, "fail", `${configName}: no caBundle for a service reference: the API server cannot verify the Service`, fix)];
  }
  const certificates = parseCaBundle(caBundle);
  if (certificates === undefined) return [finding(check, "fail", `the caBundle of ${configName} holds no PEM certificate`, fix)];
  const problems = certificates.flatMap(
    (cert) => expiry(check, `the caBundle of ${configName} (${cert.subject.replaceAll("\n", ", ")})`, cert.validTo, now, fix) ?? [],
  );
  if (problems.length > 0) return problems;
  return [finding(check, "pass", `the caBundle of ${configName} is valid until ${new Date(certificates[0]!.validTo).toISOString()}`)];
}

/** An answer over TLS, with the handshake's verdicts (read, not enforced, so that each fault is named). */
interface TlsAnswer {
  status: number;
  body: string;
  authorizationError: string | undefined;
  identityError: string | undefined;
  peer: PeerCertificate;
}

/** GET `url` trusting `caPem` alone (the system roots when undefined), on a connection of its own. */
function getOverTls(url: URL, caPem?: string): Promise<TlsAnswer> {
  let identityError: string | undefined;
  // Kept apart from authorizationError, which would otherwise hold only the error's code.
  const checkIdentity = (host: string, cert: PeerCertificate) => void (identityError = checkServerIdentity(host, cert)?.message);
  const options = { agent: false, rejectUnauthorized: false, checkServerIdentity: checkIdentity, timeout: TIMEOUT_MS, ...(caPem ? { ca: caPem } : {}) };
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      const socket = res.socket as TLSSocket;
      const authorizationError = socket.authorizationError === null ? undefined : String(socket.authorizationError);
      const answer = { status: res.statusCode ?? 0, body: "", authorizationError, identityError, peer: socket.getPeerCertificate() };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (answer.body += chunk));
      res.once("end", () => resolve(answer));
    });
    req.once("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.once("error", reject);
    req.end();
  });
}

/** The /readyz beside a function's URL (before the path secret, if any). */
function readyzUrl(url: string, fn: string): URL {
  const base = new URL(url);
  base.pathname = base.pathname.slice(0, base.pathname.lastIndexOf(`/${fn}`)) + "/readyz";
  return base;
}

/** For a URL webhook: the chain verifies with the caBundle, the name matches, the leaf is not about to expire. */
export async function checkUrlCertificate({ fn, configName, webhook }: FoundWebhook, now: number): Promise<Finding[]> {
  const check = `certificates/${fn}`;
  const url = new URL(webhook.clientConfig!.url!);
  const shown = `${maskUrl(url.origin + url.pathname, fn)} from where doctor runs`;
  const caBundle = webhook.clientConfig?.caBundle;
  const fix = `serve a certificate for ${url.hostname} signed by the CA in the caBundle of ${configName}`;
  let answer: TlsAnswer;
  try {
    answer = await getOverTls(readyzUrl(url.href, fn), caBundle && Buffer.from(caBundle, "base64").toString("utf8"));
  } catch (error) {
    // The API server may reach what doctor cannot (another network): the end-to-end probes have the last word.
    const message = `${maskUrl(url.origin + url.pathname, fn)} cannot be reached from where doctor runs: ${(error as Error).message}`;
    return [finding(check, "warn", message, "check the URL and that the function runs; the end-to-end probes show what the API server reaches")];
  }
  if (answer.authorizationError === "CERT_HAS_EXPIRED") {
    return [finding(check, "fail", `${shown}: a certificate of the chain (or the caBundle's CA) has expired`, fix)];
  }
  if (answer.authorizationError !== undefined) {
    return [finding(check, "fail", `${shown}: the caBundle of ${configName} does not verify the certificate it serves (${answer.authorizationError})`, fix)];
  }
  if (answer.identityError !== undefined) return [finding(check, "fail", `${shown}: ${answer.identityError}`, fix)];
  const leafExpiry = expiry(check, `${shown}: the certificate it serves`, answer.peer.valid_to, now, fix);
  return [leafExpiry ?? finding(check, "pass", `${shown}: the chain verifies with the caBundle and names ${url.hostname}`)];
}

/** GET /readyz of a function: directly for a URL, through the API server's service proxy for a service reference. */
export async function checkReadyz(cluster: DoctorCluster, { fn, configName, webhook }: FoundWebhook): Promise<Finding> {
  const check = `readyz/${fn}`;
  const { url, service } = webhook.clientConfig ?? {};
  const readyz = service ? `/api/v1/namespaces/${service.namespace}/services/https:${service.name}:${service.port ?? 443}/proxy/readyz` : readyzUrl(url!, fn);
  const where =
    typeof readyz === "string"
      ? `service ${service!.namespace}/${service!.name} through the API server's service proxy`
      : `${readyz.origin}${readyz.pathname} from where doctor runs`;
  let answer: { status: number; body: unknown };
  try {
    // The certificate is judged by checkUrlCertificate, so that each fault is named once.
    answer = typeof readyz === "string" ? await cluster.request({ method: "GET", path: readyz }) : await getOverTls(readyz);
  } catch (error) {
    // A URL doctor cannot reach may still be reached by the API server: the end-to-end probes decide.
    const status = service === undefined ? "warn" : "fail";
    return finding(check, status, `${fn} (${configName}): /readyz could not be read from ${where}: ${(error as Error).message}`, "check that the function runs");
  }
  if (answer.status === 200) return finding(check, "pass", `${fn}: /readyz of ${where} answered 200`);
  const reason = statusMessage(answer.body).trim().slice(0, 300);
  const message = `${fn} is not ready: /readyz of ${where} answered ${answer.status}${reason === "" ? "" : `: ${reason}`}`;
  return finding(check, "fail", message, "read the function's log; docs/operations.md says what each reason means");
}
