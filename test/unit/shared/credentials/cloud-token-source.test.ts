import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../infra/local/processes.ts";
import { VARIABLES } from "../../../../shared/config/index.ts";
import { createCloudTokenSource, type CloudTokenSettings } from "../../../../shared/credentials/cloud-token-source.ts";
import { expectRefusal } from "../../../support/no-secrets.ts";
import {
  startTokenEndpointServer,
  type EndpointAnswer,
  type TokenEndpointServer,
} from "../../../support/token-endpoint-server.ts";

const AKS_SERVER_APP_ID = VARIABLES.AKS_SERVER_ID.default;
const T0 = Date.parse("2030-01-01T00:00:00Z");

let server: TokenEndpointServer;
beforeAll(async () => {
  server = await startTokenEndpointServer(() => ({ status: 500 }));
});
afterAll(() => server.close());

/** A source for `settings` against the stand-in, with a clock the test moves. */
function createSource(
  answer: (index: number) => EndpointAnswer | "hang",
  settings: CloudTokenSettings,
  options: { shareInFlight?: boolean; timeoutMs?: number } = {},
) {
  server.requests.length = 0;
  server.script = (_request, index) => answer(index);
  const clock = { now: T0 };
  const source = createCloudTokenSource(settings, { shareInFlight: true, now: () => clock.now, ...options });
  return { source, clock };
}

// Fake secrets: every failure below is searched for them.
const IDENTITY_HEADER = "fake-identity-header-7c1e0b";
const ACCESS_TOKEN = "eyJfake.access-token.9f2d41";
const SECRETS = [IDENTITY_HEADER, ACCESS_TOKEN];

/** aks settings for the stand-in, as shared/config reads them by default. */
const aks = (extra: Partial<Extract<CloudTokenSettings, { kind: "aks" }>> = {}): CloudTokenSettings => ({
  kind: "aks",
  endpoint: `${server.origin}/MSI/token/`,
  identityHeader: IDENTITY_HEADER,
  resource: AKS_SERVER_APP_ID,
  ...extra,
});

const issued = (expiresOn: string | number, token = ACCESS_TOKEN): EndpointAnswer => ({
  status: 200,
  body: {
    access_token: token,
    expires_on: expiresOn,
    resource: AKS_SERVER_APP_ID,
    token_type: "Bearer",
    client_id: "00000000-0000-0000-0000-00000000000a",
  },
});

describe("createCloudTokenSource: aks (Azure managed identity)", () => {
  it("GETs the endpoint with the AKS resource, api-version 2019-08-01 and X-IDENTITY-HEADER (system-assigned identity)", async () => {
    const { source } = createSource(() => issued(String(T0 / 1000 + 3600)), aks());
    expect(await source.getCredential()).toEqual({
      token: ACCESS_TOKEN,
      expirationTimestamp: new Date(T0 + 3600_000).toISOString(),
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url.pathname).toBe("/MSI/token/");
    expect(Object.fromEntries(request?.url.searchParams ?? [])).toEqual({
      resource: AKS_SERVER_APP_ID,
      "api-version": "2019-08-01",
    });
    expect(request?.headers["x-identity-header"]).toBe(IDENTITY_HEADER);
    expect(request?.headers["metadata"]).toBeUndefined();
  });

  it("adds client_id for a user-assigned identity, and takes another resource", async () => {
    const clientId = "11111111-2222-3333-4444-555555555555";
    const { source } = createSource(() => issued(T0 / 1000 + 3600), aks({ clientId, resource: "api://other" }));
    await source.getCredential();
    expect(Object.fromEntries(server.requests[0]?.url.searchParams ?? [])).toEqual({
      resource: "api://other",
      "api-version": "2019-08-01",
      client_id: clientId,
    });
  });

  it("shares one request among concurrent callers on Node, and fetches per caller on Workers", async () => {
    const shared = createSource(() => issued(T0 / 1000 + 3600), aks());
    await Promise.all([shared.source.getCredential(), shared.source.getCredential(), shared.source.getCredential()]);
    expect(server.requests).toHaveLength(1);
    const workers = createSource(() => issued(T0 / 1000 + 3600), aks(), { shareInFlight: false });
    await Promise.all([workers.source.getCredential(), workers.source.getCredential()]);
    expect(server.requests).toHaveLength(2);
    await workers.source.getCredential();
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [
      "a 403",
      { status: 403, body: { statusCode: 403, message: `denied ${IDENTITY_HEADER}` } },
      /refused: HTTP 403 Forbidden$/,
    ],
    [
      "a 500 that echoes a token",
      { status: 500, body: { error: "internal", access_token: ACCESS_TOKEN } },
      /refused: HTTP 500 Internal Server Error \(error "internal"\)/,
    ],
    [
      "a 400 OAuth error",
      { status: 400, body: { error: "invalid_resource", error_description: `no ${ACCESS_TOKEN}` } },
      /HTTP 400 Bad Request \(error "invalid_resource"\)/,
    ],
    [
      "a body that is not JSON",
      { status: 200, body: `{"access_token": "${ACCESS_TOKEN}"` },
      /HTTP 200 with a body that is not JSON/,
    ],
    ["a JSON array", { status: 200, body: [ACCESS_TOKEN] }, /JSON that is not an object/],
    ["no access_token", { status: 200, body: { expires_on: "1893459600" } }, /answered without a valid access_token$/],
    ["no expires_on", { status: 200, body: { access_token: ACCESS_TOKEN } }, /answered without a valid expires_on$/],
    [
      "a date for expires_on",
      { status: 200, body: { access_token: ACCESS_TOKEN, expires_on: "1/1/2030 1:00:00 AM +00:00" } },
      /answered without a valid expires_on$/,
    ],
    ["an expired token", issued(T0 / 1000 - 1), /returned a credential that has already expired/],
    [
      "a redirect (never followed with the header)",
      { status: 302, headers: { Location: "http://127.0.0.2:9/steal" } },
      /refused: HTTP 302/,
    ],
  ])("refuses %s with ERR_CREDENTIALS that names it and holds no secret", async (_, answer, message) => {
    const { source } = createSource(() => answer, aks());
    await expectRefusal(source.getCredential(), message, SECRETS);
    expect(server.requests).toHaveLength(1);
  });
});

// A fake secret: every failure below is searched for it.
const GOOGLE_TOKEN = "ya29.fake-access-token-5be83c";
const TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token";
const GOOGLE = { "Metadata-Flavor": "Google" };

/** gke settings for the stand-in: the runtime's own service account. */
const gke = (extra: Partial<Extract<CloudTokenSettings, { kind: "gke" }>> = {}): CloudTokenSettings => ({
  kind: "gke",
  host: server.host,
  serviceAccount: "default",
  ...extra,
});

/** An answer of the metadata server, which always sends Metadata-Flavor: Google. */
const fromGoogle = (status: number, body: unknown): EndpointAnswer => ({ status, headers: GOOGLE, body });
const issuedByGoogle = (expiresIn: number, token = GOOGLE_TOKEN): EndpointAnswer =>
  fromGoogle(200, { access_token: token, expires_in: expiresIn, token_type: "Bearer" });

describe("createCloudTokenSource: gke (Google metadata server)", () => {
  it("GETs the default service account's token with Metadata-Flavor: Google and nothing else to say", async () => {
    const { source } = createSource(() => issuedByGoogle(3599), gke());
    expect(await source.getCredential()).toEqual({
      token: GOOGLE_TOKEN,
      expirationTimestamp: new Date(T0 + 3599_000).toISOString(),
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url.pathname).toBe(TOKEN_PATH);
    expect([...(request?.url.searchParams ?? [])]).toEqual([]);
    expect(request?.headers["metadata-flavor"]).toBe("Google");
    expect(request?.headers.host).toBe(server.host);
    // The metadata server refuses requests that look proxied.
    expect(request?.headers["x-forwarded-for"]).toBeUndefined();
  });

  it("asks for a named service account's token", async () => {
    const { source } = createSource(
      () => issuedByGoogle(3599),
      gke({ serviceAccount: "gmsa-expand@my-project.iam.gserviceaccount.com" }),
    );
    await source.getCredential();
    expect(server.requests[0]?.url.pathname).toBe(
      "/computeMetadata/v1/instance/service-accounts/gmsa-expand@my-project.iam.gserviceaccount.com/token",
    );
  });

  it.each([
    ["a 403", fromGoogle(403, "Forbidden"), /^Google metadata server refused: HTTP 403 Forbidden$/],
    [
      "a 500 that echoes a token",
      fromGoogle(500, { access_token: GOOGLE_TOKEN }),
      /refused: HTTP 500 Internal Server Error$/,
    ],
    [
      "an answer without Metadata-Flavor: Google",
      { ...issuedByGoogle(3599), headers: {} },
      /without the Metadata-Flavor: Google header/,
    ],
    [
      "a body that is not JSON",
      fromGoogle(200, `access_token=${GOOGLE_TOKEN}`),
      /HTTP 200 with a body that is not JSON/,
    ],
    [
      "no access_token",
      fromGoogle(200, { expires_in: 3599, token_type: "Bearer" }),
      /answered without a valid access_token$/,
    ],
    [
      "no expires_in",
      fromGoogle(200, { access_token: GOOGLE_TOKEN, token_type: "Bearer" }),
      /answered without a valid expires_in$/,
    ],
    [
      "expires_in as text",
      fromGoogle(200, { access_token: GOOGLE_TOKEN, expires_in: "3599" }),
      /answered without a valid expires_in$/,
    ],
    [
      "another token_type",
      fromGoogle(200, { access_token: GOOGLE_TOKEN, expires_in: 3599, token_type: "MAC" }),
      /answered without a valid token_type$/,
    ],
  ])("refuses %s with ERR_CREDENTIALS that names it and holds no token", async (_, answer, message) => {
    const { source } = createSource(() => answer, gke());
    await expectRefusal(source.getCredential(), message, [GOOGLE_TOKEN]);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each([
  {
    endpoint: "Azure managed identity endpoint",
    at: aks,
    closed: (port: number) => aks({ endpoint: `http://127.0.0.1:${port}/MSI/token/` }),
  },
  { endpoint: "Google metadata server", at: gke, closed: (port: number) => gke({ host: `127.0.0.1:${port}` }) },
])("createCloudTokenSource: the $endpoint", ({ endpoint, at, closed }) => {
  it("is given up on when it does not answer within timeoutMs, or cannot be reached", async () => {
    const secrets = [...SECRETS, GOOGLE_TOKEN];
    const slow = createSource(() => "hang", at(), { timeoutMs: 50 });
    await expectRefusal(slow.source.getCredential(), new RegExp(`^${endpoint} did not answer within 50 ms$`), secrets);
    const gone = createSource(() => "hang", closed(await freePort()));
    await expectRefusal(
      gone.source.getCredential(),
      new RegExp(`^${endpoint} could not be reached \\(ECONNREFUSED\\)$`),
      secrets,
    );
  });
});
