/**
 * The clouds' own identities as token sources: eks presigns locally (eks.ts), aks and gke GET a local endpoint. Failures
 * say which step went wrong, never repeating the secret header or the answer's body (either may hold a credential).
 */
import * as z from "zod/mini";
import { AdmissionError, shortErrorCode } from "../errors.ts";
import { parseJson } from "../json.ts";
import { createCredentialCache, type CacheSharingOptions } from "./cache.ts";
import { presignEksToken, type EksTokenOptions } from "./eks.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** One cloud's token source, as shared/config read (and checked) it from CLOUD_TOKEN's variables or the CLI's flags. */
export type CloudTokenSettings =
  | ({ kind: "eks" } & EksTokenOptions)
  // https://learn.microsoft.com/azure/app-service/overview-managed-identity#rest-endpoint-reference
  | { kind: "aks"; endpoint: string; identityHeader: string; clientId?: string | undefined; resource: string }
  // https://cloud.google.com/compute/docs/access/authenticate-workloads#applications
  | { kind: "gke"; host: string; serviceAccount: string };

/** What the runtime decides; `timeoutMs` (default 5000: both endpoints are local and answer in milliseconds) is for tests. */
type CloudTokenSourceOptions = CacheSharingOptions & { timeoutMs?: number };

/** A local token endpoint: its URL, headers (never in errors), name for errors, and the answer's fields a credential needs. */
interface TokenEndpoint<T> {
  url: URL;
  headers: Record<string, string>;
  describe: string;
  /** A header a genuine answer carries (Google's `Metadata-Flavor: Google`); a 2xx without it is refused. */
  responseHeader?: [name: string, value: string];
  answer: z.ZodMiniType<T>;
  credential: (answer: T, requestedAt: number) => Credential;
}

const accessToken = z.string().check(z.minLength(1));

/** The source for `settings`, cached until its expiry less the refresh skew (what else a cloud is: ./clouds/). */
export function createCloudTokenSource(settings: CloudTokenSettings, options: CloudTokenSourceOptions): TokenSource {
  switch (settings.kind) {
    case "eks": {
      const describe = `EKS token for cluster "${settings.cluster}"`;
      const load = (_: unknown, requestedAt: number): Promise<Credential> =>
        presignEksToken(settings, requestedAt).catch((error: unknown) => {
          // Web Crypto failures carry no key material; say which step failed, not what was signed.
          throw new AdmissionError(
            `${describe}: signing failed (${error instanceof Error ? error.name : "unknown error"})`,
            { code: "ERR_CREDENTIALS" },
          );
        });
      return createCredentialCache({ ...options, load, describe });
    }
    case "aks":
      return azureManagedIdentity(settings, options);
    case "gke":
      return gcpMetadata(settings, options);
  }
}

/** AKS tokens without kubelogin: an Entra ID token for the AKS server app from App Service's managed identity endpoint. */
function azureManagedIdentity(
  settings: Extract<CloudTokenSettings, { kind: "aks" }>,
  options: CloudTokenSourceOptions,
): TokenSource {
  const url = new URL(settings.endpoint);
  url.searchParams.set("resource", settings.resource);
  // The version that takes X-IDENTITY-HEADER and client_id (2017's took secret and clientid).
  url.searchParams.set("api-version", "2019-08-01");
  if (settings.clientId !== undefined) url.searchParams.set("client_id", settings.clientId);
  return createTokenEndpointSource(options, {
    url,
    headers: { "X-IDENTITY-HEADER": settings.identityHeader, Accept: "application/json" },
    describe: "Azure managed identity endpoint",
    // expires_on: epoch seconds, a string in the 2019 API, a number in others.
    answer: z.object({
      access_token: accessToken,
      expires_on: z.union([z.string().check(z.regex(/^\d{1,12}$/)), z.int().check(z.minimum(0))]),
    }),
    credential: (answer) => ({
      token: answer.access_token,
      expirationTimestamp: new Date(Number(answer.expires_on) * 1000).toISOString(),
    }),
  });
}

/** GKE tokens without gke-gcloud-auth-plugin: the service account's access token from Google's metadata server. */
function gcpMetadata(
  { host, serviceAccount }: Extract<CloudTokenSettings, { kind: "gke" }>,
  options: CloudTokenSourceOptions,
): TokenSource {
  return createTokenEndpointSource(options, {
    // Plain http on purpose: the metadata server is link-local and serves no TLS.
    url: new URL(`http://${host}/computeMetadata/v1/instance/service-accounts/${serviceAccount}/token`),
    headers: { "Metadata-Flavor": "Google", Accept: "application/json" },
    // As Google's gcp-metadata library checks: a proxy or captive portal answering in its place lacks it.
    responseHeader: ["Metadata-Flavor", "Google"],
    describe: "Google metadata server",
    answer: z.object({
      access_token: accessToken,
      expires_in: z.number().check(z.positive()),
      token_type: z.optional(z.string().check(z.regex(/^bearer$/i))),
    }),
    // Counted from the request, not the answer: the server's clock started before ours stopped.
    credential: (answer, requestedAt) => ({
      token: answer.access_token,
      expirationTimestamp: new Date(requestedAt + answer.expires_in * 1000).toISOString(),
    }),
  });
}

function createTokenEndpointSource<T>(options: CloudTokenSourceOptions, endpoint: TokenEndpoint<T>): TokenSource {
  const { url, headers, describe, responseHeader } = endpoint;
  const timeoutMs = options.timeoutMs ?? 5_000;
  // `signal` is the caller's deadline, on top of `timeoutMs`: it ends in ERR_DEADLINE_EXCEEDED, everything else
  // (a timeout, a transport error, a non-2xx answer, an answer that is not a JSON object) in ERR_CREDENTIALS.
  async function load(signal: AbortSignal | undefined, requestedAt: number): Promise<Credential> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      // Never follow a redirect: it would carry the secret header elsewhere. A 3xx is a refusal like any non-2xx.
      const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
      response = await fetch(url, { method: "GET", headers, signal: combined, redirect: "manual" });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted === true)
        throw new AdmissionError(`${describe}: no token before the deadline`, { code: "ERR_DEADLINE_EXCEEDED" });
      if (timeout.aborted)
        throw new AdmissionError(`${describe} did not answer within ${timeoutMs} ms`, { code: "ERR_CREDENTIALS" });
      throw new AdmissionError(`${describe} could not be reached (${shortErrorCode(error)})`, {
        code: "ERR_CREDENTIALS",
      });
    }
    if (!response.ok) {
      const statusText = response.statusText === "" ? "" : ` ${response.statusText}`;
      throw new AdmissionError(`${describe} refused: HTTP ${response.status}${statusText}${errorCode(text)}`, {
        code: "ERR_CREDENTIALS",
      });
    }
    if (responseHeader !== undefined && response.headers.get(responseHeader[0]) !== responseHeader[1]) {
      throw new AdmissionError(
        `${describe} answered without the ${responseHeader.join(": ")} header (not the real endpoint?)`,
        { code: "ERR_CREDENTIALS" },
      );
    }
    const body = parseJson(text);
    if (body === undefined)
      throw new AdmissionError(`${describe} answered HTTP ${response.status} with a body that is not JSON`, {
        code: "ERR_CREDENTIALS",
      });
    const parsed = endpoint.answer.safeParse(body);
    if (parsed.success) return endpoint.credential(parsed.data, requestedAt);
    const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? "")))];
    if (fields.includes(""))
      throw new AdmissionError(`${describe} answered HTTP ${response.status} with JSON that is not an object`, {
        code: "ERR_CREDENTIALS",
      });
    throw new AdmissionError(`${describe} answered without a valid ${fields.join(", ")}`, { code: "ERR_CREDENTIALS" });
  }
  return createCredentialCache({ ...options, load, describe });
}

/** The `error` code of an error answer when it is short and harmless (OAuth's `invalid_request`); nothing longer. */
function errorCode(text: string): string {
  const error = (parseJson(text) as { error?: unknown } | null | undefined)?.error;
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : error;
  return typeof code === "string" && /^[\w.-]{1,64}$/.test(code) ? ` (error "${code}")` : "";
}
