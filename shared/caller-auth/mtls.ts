/** CALLER_AUTH=mtls: the Node server's TLS layer verifies the caller's certificate; CALLER_AUTH_CLIENT_NAMES limits its CN. */
import type { CallerAuthMode } from "./mode.ts";
import { refuseCaller } from "./refusal.ts";

/** Node server only: the TLS layer verifies the certificate against `clientCaFile` (functions/node/server.ts). */
export type MtlsOptions = { mode: "mtls"; clientCaFile: string; clientNames: readonly string[] };

export const mtls = {
  name: "mtls",
  variables: ["CALLER_AUTH_CLIENT_CA_FILE", "CALLER_AUTH_CLIENT_NAMES"],
  runtimes: ["node"],
  read(read) {
    const clientCaFile = read.optional("CALLER_AUTH_CLIENT_CA_FILE") ?? "";
    if (clientCaFile === "")
      read.problems.push(
        "CALLER_AUTH=mtls needs CALLER_AUTH_CLIENT_CA_FILE (PEM file of the CA that signs callers' certificates)",
      );
    return { mode: "mtls", clientCaFile, clientNames: read.items("CALLER_AUTH_CLIENT_NAMES") };
  },
  checkListener({ runtime, tlsCertFile, tlsKeyFile }) {
    // Off the Node server, TLS ends before the function, which therefore never sees a client certificate.
    if (runtime === "workers") {
      return (
        "CALLER_AUTH=mtls needs the Node server: on Cloudflare Workers TLS ends at Cloudflare, so client certificates are " +
        "configured there (API Shield mTLS, https://developers.cloudflare.com/api-shield/security/mtls/, enforced by a WAF " +
        "rule on cf.tls_client_auth.cert_verified); choose bearer or jwt here"
      );
    }
    if (runtime !== "node") {
      return (
        "CALLER_AUTH=mtls needs the Node server (npm start, infra/deploy/node): on a function platform TLS ends at the platform's " +
        "front end, so the function never sees the caller's certificate; choose bearer, jwt or path"
      );
    }
    if (tlsCertFile === undefined || tlsKeyFile === undefined)
      return "CALLER_AUTH=mtls needs HTTPS: set TLS_CERT_FILE and TLS_KEY_FILE";
    return undefined;
  },
  clientCaFile: (options) => options.clientCaFile,
  middleware({ clientNames }, { logger, clientCertificate }) {
    const names = new Set(clientNames);
    // TLS verified the certificate against the configured CA; here we only read the verdict and the name. Without a
    // reader (config allows mtls on the Node server only, which has one) no certificate is seen: every caller is refused.
    return async (c, next) => {
      const cert = clientCertificate?.(c);
      if (cert === undefined || !cert.presented) refuseCaller(logger, "mtls", 401, "no client certificate");
      if (!cert.authorized) refuseCaller(logger, "mtls", 401, cert.error ?? "client certificate not verified");
      if (names.size > 0 && !cert.commonNames.some((cn) => names.has(cn)))
        refuseCaller(logger, "mtls", 403, "client certificate name not allowed");
      await next();
    };
  },
} as const satisfies CallerAuthMode<MtlsOptions>;
