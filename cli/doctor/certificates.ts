/**
 * Certificates and readiness of each registered function. For a URL the doctor connects itself, with the caBundle as
 * the only CA: that shows what it sees from where it runs, not what the API server sees. For a service reference the
 * API server verifies the Service's certificate (the end-to-end probes name those x509 failures) and proxies /readyz.
 */
import { X509Certificate } from "node:crypto";
import { request } from "node:https";
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from "node:tls";
import type { ClusterAnswer } from "../cluster.ts";
import { finding, statusMessage, type DoctorCluster, type Finding } from "./findings.ts";
import type { FoundWebhook } from "./webhooks.ts";

const RENEWAL_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;
const TIMEOUT_MS = 5000;
/** A /readyz answer is one line; a longer body is cut here rather than read on. */
const MAX_BODY_CHARS = 4096;

/** Expired: fail; inside the renewal window: warn; else undefined. */
function expiry(check: string, what: string, validTo: string, now: number, fix: string): Finding | undefined {
  const end = new Date(validTo);
  if (end.getTime() <= now) return finding(check, "fail", `${what} expired on ${end.toISOString()}`, fix);
  const days = Math.floor((end.getTime() - now) / DAY_MS);
  if (days >= RENEWAL_WINDOW_DAYS) return undefined;
  const when = `${days} ${days === 1 ? "day" : "days"} (${end.toISOString()})`;
  return finding(
    check,
    "warn",
    `${what} expires in ${when}, inside the ${RENEWAL_WINDOW_DAYS}-day renewal window`,
    fix,
  );
}

/** A webhook's caBundle: present where needed, PEM certificates that parse, none expired nor about to. */
function checkCaBundle({ fn, configName, webhook }: FoundWebhook, now: number): Finding[] {
  const check = `certificates/${fn}`;
  const caBundle = webhook.clientConfig?.caBundle;
  const fix = `put the current CA's base64 PEM into the caBundle of ${configName} (docs/operations.md, Certificates)`;
  if (!caBundle && webhook.clientConfig?.url !== undefined) {
    return [finding(check, "pass", `${configName}: no caBundle, the API server trusts its system roots for the URL`)];
  }
  if (!caBundle)
    return [
      finding(
        check,
        "fail",
        `${configName}: no caBundle for a service reference: the API server cannot verify the Service`,
        fix,
      ),
    ];
  const pem = Buffer.from(caBundle, "base64").toString("utf8");
  let certificates: X509Certificate[] | undefined;
  try {
    certificates = pem
      .match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)
      ?.map((block) => new X509Certificate(block));
  } catch {
    // A block that does not parse makes the whole bundle unusable.
  }
  if (certificates === undefined)
    return [finding(check, "fail", `the caBundle of ${configName} holds no PEM certificate`, fix)];
  const problems = certificates.flatMap(
    (cert) =>
      expiry(check, `the caBundle of ${configName} (${cert.subject.replaceAll("\n", ", ")})`, cert.validTo, now, fix) ??
      [],
  );
  if (problems.length > 0) return problems;
  return [
    finding(
      check,
      "pass",
      `the caBundle of ${configName} is valid until ${new Date(certificates[0]!.validTo).toISOString()}`,
    ),
  ];
}

type TlsAnswer = {
  status: number;
  body: string;
  authorizationError?: string;
  identityError?: string;
  peer: PeerCertificate;
};

/** GET `url` trusting `caPem` alone (else the system roots); the handshake's verdicts are read, not enforced. */
function getOverTls(url: URL, caPem?: string): Promise<TlsAnswer> {
  let identityError: string | undefined;
  // Checked apart, or authorizationError would hold only the code of a name mismatch, not the names.
  const checkIdentity = (host: string, cert: PeerCertificate) =>
    void (identityError = checkServerIdentity(host, cert)?.message);
  const options = {
    agent: false,
    rejectUnauthorized: false,
    checkServerIdentity: checkIdentity,
    ...(caPem ? { ca: caPem } : {}),
  };
  let deadline: NodeJS.Timeout | undefined;
  return new Promise<TlsAnswer>((resolve, reject) => {
    const req = request(url, options, (res) => {
      const socket = res.socket as TLSSocket;
      const answer: TlsAnswer = { status: res.statusCode ?? 0, body: "", peer: socket.getPeerCertificate() };
      if (socket.authorizationError) answer.authorizationError = String(socket.authorizationError);
      if (identityError) answer.identityError = identityError;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        answer.body += chunk;
        if (answer.body.length < MAX_BODY_CHARS) return;
        answer.body = answer.body.slice(0, MAX_BODY_CHARS);
        resolve(answer);
        res.destroy();
      });
      res.once("error", reject);
      res.once("end", () => resolve(answer));
    });
    req.once("error", reject);
    req.end();
    // One deadline for the whole exchange: an endpoint that trickles bytes keeps an idle timeout from firing.
    deadline = setTimeout(() => {
      const error = new Error(`no answer within ${TIMEOUT_MS} ms`);
      reject(error);
      req.destroy(error);
    }, TIMEOUT_MS);
  }).finally(() => clearTimeout(deadline));
}

/** For a URL webhook: the chain verifies with the caBundle, the name matches, the leaf is not about to expire. */
function checkUrlCertificate(
  { fn, configName, webhook }: FoundWebhook,
  answer: TlsAnswer | Error,
  now: number,
): Finding {
  const check = `certificates/${fn}`;
  const { hostname, origin, pathname } = new URL(webhook.clientConfig!.url!);
  // A path secret (anything after /expand or /authorize) is masked.
  const shown = `${origin}${pathname.replace(new RegExp(`(/${fn})/.+`), "$1/***")}`;
  if (answer instanceof Error) {
    // The API server may reach what doctor cannot (another network): the end-to-end probes have the last word.
    const message = `${shown} cannot be reached from where doctor runs: ${answer.message}`;
    return finding(
      check,
      "warn",
      message,
      "check the URL and that the function runs; the end-to-end probes show what the API server reaches",
    );
  }
  const where = `${shown} from where doctor runs`;
  const fix = `serve a certificate for ${hostname} signed by the CA in the caBundle of ${configName}`;
  const { authorizationError, identityError } = answer;
  const fault =
    authorizationError === "CERT_HAS_EXPIRED"
      ? "a certificate of the chain (or the caBundle's CA) has expired"
      : authorizationError
        ? `the caBundle of ${configName} does not verify the certificate it serves (${authorizationError})`
        : identityError;
  if (fault) return finding(check, "fail", `${where}: ${fault}`, fix);
  const leafExpiry = expiry(check, `${where}: the certificate it serves`, answer.peer.valid_to, now, fix);
  return leafExpiry ?? finding(check, "pass", `${where}: the chain verifies with the caBundle and names ${hostname}`);
}

/**
 * Why a Service's function cannot answer, from the Deployment the chart names like the Service: scaled to 0, or no
 * replica Ready. Undefined when there is no such Deployment, doctor may not read it, or its replicas are Ready.
 */
async function explainDeployment(
  cluster: DoctorCluster,
  service: { namespace: string; name: string },
): Promise<{ message: string; fix: string } | undefined> {
  const path = `/apis/apps/v1/namespaces/${service.namespace}/deployments/${service.name}`;
  const answer = await cluster.request({ method: "GET", path }).catch(() => undefined);
  if (answer?.status !== 200) return undefined;
  const { spec, status } = answer.body as { spec?: { replicas?: number }; status?: { readyReplicas?: number } };
  const name = `Deployment ${service.namespace}/${service.name}`;
  if (spec?.replicas === 0) {
    return {
      message: `${name} is scaled to 0 replicas: no pod answers, so every GMSA pod is refused`,
      fix: `kubectl scale deployment -n ${service.namespace} ${service.name} --replicas=2`,
    };
  }
  if ((status?.readyReplicas ?? 0) === 0) {
    const fix = `kubectl describe deployment -n ${service.namespace} ${service.name}, then kubectl logs -n ${service.namespace} deploy/${service.name}`;
    return { message: `none of the ${spec?.replicas ?? 1} replicas of ${name} is Ready`, fix };
  }
  return undefined;
}

/** A function's caBundle; for a URL, from one GET from where doctor runs, the certificate it serves; its /readyz. */
export async function checkFunction(cluster: DoctorCluster, found: FoundWebhook, now: number): Promise<Finding[]> {
  const { fn, configName, webhook } = found;
  const { url, service, caBundle } = webhook.clientConfig ?? {};
  const findings = checkCaBundle(found, now);
  let where: string;
  let answer: ClusterAnswer | TlsAnswer | Error;
  if (service) {
    where = `service ${service.namespace}/${service.name} through the API server's service proxy`;
    const path = `/api/v1/namespaces/${service.namespace}/services/https:${service.name}:${service.port ?? 443}/proxy/readyz`;
    // The function answers `ok` (text), not JSON.
    answer = await cluster.request({ method: "GET", path, text: true }).catch((error: Error) => error);
  } else {
    const readyz = new URL(url!);
    // Beside the review path, before any path secret.
    readyz.pathname = readyz.pathname.slice(0, readyz.pathname.lastIndexOf(`/${fn}`)) + "/readyz";
    where = `${readyz.origin}${readyz.pathname} from where doctor runs`;
    answer = await getOverTls(readyz, caBundle && Buffer.from(caBundle, "base64").toString("utf8")).catch(
      (error: Error) => error,
    );
    const served = checkUrlCertificate(found, answer, now);
    // A caBundle that failed (expired, no PEM) fails the chain too: that is the same fault, named once.
    if (served.status !== "fail" || !findings.some((f) => f.status === "fail")) findings.push(served);
  }
  const check = `readyz/${fn}`;
  if (answer instanceof Error) {
    // A URL doctor cannot reach may still be reached by the API server: the end-to-end probes decide.
    const message = `${fn} (${configName}): /readyz could not be read from ${where}: ${answer.message}`;
    return [...findings, finding(check, service ? "fail" : "warn", message, "check that the function runs")];
  }
  if (answer.status === 200) return [...findings, finding(check, "pass", `${fn}: /readyz of ${where} answered 200`)];
  const workload = service && (await explainDeployment(cluster, service));
  if (workload)
    return [...findings, finding(check, "fail", `${fn} (${configName}): ${workload.message}`, workload.fix)];
  const reason = statusMessage(answer.body).trim();
  const message = `${fn} is not ready: /readyz of ${where} answered ${answer.status}${reason === "" ? "" : `: ${reason}`}`;
  return [
    ...findings,
    finding(check, "fail", message, "read the function's log; docs/operations.md says what each reason means"),
  ];
}
