import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAzureManagedIdentityTokenSource, type AzureManagedIdentityTokenSourceOptions } from "../../../../shared/credentials/azure-managed-identity.ts";
import { AKS_SERVER_APP_ID } from "../../../../shared/credentials/cloud-constants.ts";
import { freePort } from "../../../../infra/local/processes.ts";
import { expectRefusal } from "../../../support/no-secrets.ts";
import { startTokenEndpointServer, type EndpointAnswer, type TokenEndpointServer } from "../../../support/token-endpoint-server.ts";

// Fake secrets: every failure below is searched for them.
const IDENTITY_HEADER = "fake-identity-header-7c1e0b";
const ACCESS_TOKEN = "eyJfake.access-token.9f2d41";
const T0 = Date.parse("2030-01-01T00:00:00Z");

let server: TokenEndpointServer;
beforeAll(async () => {
  server = await startTokenEndpointServer(() => ({ status: 500 }));
});
afterAll(() => server.close());

/** A source against the stand-in, with a clock the test moves. */
function createSource(answer: (index: number) => EndpointAnswer | "hang", extra: Partial<AzureManagedIdentityTokenSourceOptions> = {}) {
  server.requests.length = 0;
  server.script = (_request, index) => answer(index);
  const clock = { now: T0 };
  const source = createAzureManagedIdentityTokenSource({
    endpoint: `${server.origin}/MSI/token/`,
    identityHeader: IDENTITY_HEADER,
    shareInFlight: true,
    now: () => clock.now,
    ...extra,
  });
  return { source, clock };
}

const issued = (expiresOn: string | number, token = ACCESS_TOKEN): EndpointAnswer => ({
  status: 200,
  body: { access_token: token, expires_on: expiresOn, resource: AKS_SERVER_APP_ID, token_type: "Bearer", client_id: "00000000-0000-0000-0000-00000000000a" },
});

const SECRETS = [IDENTITY_HEADER, ACCESS_TOKEN];

describe("createAzureManagedIdentityTokenSource", () => {
  it("GETs the endpoint with the AKS resource, api-version 2019-08-01 and X-IDENTITY-HEADER (system-assigned identity)", async () => {
    const { source } = createSource(() => issued(String(T0 / 1000 + 3600)));
    expect(await source.getCredential()).toEqual({ token: ACCESS_TOKEN, expirationTimestamp: new Date(T0 + 3600_000).toISOString() });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url.pathname).toBe("/MSI/token/");
    expect(Object.fromEntries(request?.url.searchParams ?? [])).toEqual({ resource: AKS_SERVER_APP_ID, "api-version": "2019-08-01" });
    expect(request?.headers["x-identity-header"]).toBe(IDENTITY_HEADER);
    expect(request?.headers["metadata"]).toBeUndefined();
  });

  it("adds client_id for a user-assigned identity, and takes another resource", async () => {
    const clientId = "11111111-2222-3333-4444-555555555555";
    const { source } = createSource(() => issued(T0 / 1000 + 3600), { clientId, resource: "api://other" });
    await source.getCredential();
    expect(Object.fromEntries(server.requests[0]?.url.searchParams ?? [])).toEqual({
      resource: "api://other",
      "api-version": "2019-08-01",
      client_id: clientId,
    });
  });

  it("reuses the token until expires_on less the refresh skew, then fetches again", async () => {
    const { source, clock } = createSource((index) => issued(String(T0 / 1000 + 3600 * (index + 1)), `${ACCESS_TOKEN}-${index}`));
    expect(await source.getCredential()).toMatchObject({ token: `${ACCESS_TOKEN}-0` });
    clock.now = T0 + 3600_000 - 60_001;
    expect(await source.getCredential()).toMatchObject({ token: `${ACCESS_TOKEN}-0` });
    expect(server.requests).toHaveLength(1);
    clock.now = T0 + 3600_000 - 60_000;
    expect(await source.getCredential()).toMatchObject({ token: `${ACCESS_TOKEN}-1` });
    expect(server.requests).toHaveLength(2);
  });

  it("shares one request among concurrent callers on Node, and fetches per caller on Workers", async () => {
    const shared = createSource(() => issued(T0 / 1000 + 3600));
    await Promise.all([shared.source.getCredential(), shared.source.getCredential(), shared.source.getCredential()]);
    expect(server.requests).toHaveLength(1);
    const workers = createSource(() => issued(T0 / 1000 + 3600), { shareInFlight: false });
    await Promise.all([workers.source.getCredential(), workers.source.getCredential()]);
    expect(server.requests).toHaveLength(2);
    await workers.source.getCredential();
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ["a 403", { status: 403, body: { statusCode: 403, message: `denied ${IDENTITY_HEADER}` } }, /refused: HTTP 403 Forbidden$/],
    ["a 500 that echoes a token", { status: 500, body: { error: "internal", access_token: ACCESS_TOKEN } }, /refused: HTTP 500 Internal Server Error \(error "internal"\)/],
    ["a 400 OAuth error", { status: 400, body: { error: "invalid_resource", error_description: `no ${ACCESS_TOKEN}` } }, /HTTP 400 Bad Request \(error "invalid_resource"\)/],
    ["a body that is not JSON", { status: 200, body: `{"access_token": "${ACCESS_TOKEN}"` }, /HTTP 200 with a body that is not JSON/],
    ["a JSON array", { status: 200, body: [ACCESS_TOKEN] }, /JSON that is not an object/],
    ["no access_token", { status: 200, body: { expires_on: "1893459600" } }, /answered without access_token$/],
    ["no expires_on", { status: 200, body: { access_token: ACCESS_TOKEN } }, /without expires_on in epoch seconds/],
    ["a date for expires_on", { status: 200, body: { access_token: ACCESS_TOKEN, expires_on: "1/1/2030 1:00:00 AM +00:00" } }, /without expires_on in epoch seconds/],
    ["an expired token", issued(T0 / 1000 - 1), /returned a credential that has already expired/],
    ["a redirect (never followed with the header)", { status: 302, headers: { Location: "http://127.0.0.2:9/steal" } }, /refused: HTTP 302/],
  ])("refuses %s with a CredentialsError that names it and holds no secret", async (_, answer, message) => {
    const { source } = createSource(() => answer);
    await expectRefusal(source.getCredential(), message, SECRETS);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up on an endpoint that does not answer within timeoutMs", async () => {
    const { source } = createSource(() => "hang", { timeoutMs: 50 });
    await expectRefusal(source.getCredential(), /^Azure managed identity endpoint did not answer within 50 ms$/, SECRETS);
  });

  it("names an endpoint that cannot be reached by the transport error's code", async () => {
    const { source } = createSource(() => "hang", { endpoint: `http://127.0.0.1:${await freePort()}/MSI/token/` });
    await expectRefusal(source.getCredential(), /^Azure managed identity endpoint could not be reached \(ECONNREFUSED\)$/, SECRETS);
  });

  it("refuses unusable options up front with a TypeError that does not repeat the header", () => {
    const base = { endpoint: "http://127.0.0.1:1/MSI/token/", identityHeader: IDENTITY_HEADER, shareInFlight: true };
    expect(() => createAzureManagedIdentityTokenSource({ ...base, endpoint: "not a url" })).toThrow(TypeError);
    expect(() => createAzureManagedIdentityTokenSource({ ...base, endpoint: "file:///etc/passwd" })).toThrow(/http\(s\) URL/);
    expect(() => createAzureManagedIdentityTokenSource({ ...base, identityHeader: "" })).toThrow(/header is empty/);
    expect(() => createAzureManagedIdentityTokenSource({ ...base, clientId: "" })).toThrow(/client id is empty/);
    expect(() => createAzureManagedIdentityTokenSource({ ...base, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createAzureManagedIdentityTokenSource({ ...base, timeoutMs: 60_001 })).toThrow(/timeoutMs/);
  });
});
