import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../infra/local/processes.ts";
import {
  buildGcpMetadataTokenUrl,
  createGcpMetadataTokenSource,
  type GcpMetadataTokenSourceOptions,
} from "../../../../shared/credentials/gcp-metadata.ts";
import { expectRefusal } from "../../../support/no-secrets.ts";
import { startTokenEndpointServer, type EndpointAnswer, type TokenEndpointServer } from "../../../support/token-endpoint-server.ts";

// A fake secret: every failure below is searched for it.
const ACCESS_TOKEN = "ya29.fake-access-token-5be83c";
const SECRETS = [ACCESS_TOKEN];
const T0 = Date.parse("2030-01-01T00:00:00Z");
const TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token";
const GOOGLE = { "Metadata-Flavor": "Google" };

let server: TokenEndpointServer;
beforeAll(async () => {
  server = await startTokenEndpointServer(() => ({ status: 500 }));
});
afterAll(() => server.close());

/** A source against the stand-in, with a clock the test moves. */
function createSource(answer: (index: number) => EndpointAnswer | "hang", extra: Partial<GcpMetadataTokenSourceOptions> = {}) {
  server.requests.length = 0;
  server.script = (_request, index) => answer(index);
  const clock = { now: T0 };
  const source = createGcpMetadataTokenSource({ host: server.host, shareInFlight: true, now: () => clock.now, ...extra });
  return { source, clock };
}

const issued = (expiresIn: number, token = ACCESS_TOKEN): EndpointAnswer => ({
  status: 200,
  headers: GOOGLE,
  body: { access_token: token, expires_in: expiresIn, token_type: "Bearer" },
});

describe("createGcpMetadataTokenSource", () => {
  it("GETs the default service account's token with Metadata-Flavor: Google and nothing else to say", async () => {
    const { source } = createSource(() => issued(3599));
    expect(await source.getCredential()).toEqual({ token: ACCESS_TOKEN, expirationTimestamp: new Date(T0 + 3599_000).toISOString() });
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
    const { source } = createSource(() => issued(3599), { serviceAccount: "gmsa-expand@my-project.iam.gserviceaccount.com" });
    await source.getCredential();
    expect(server.requests[0]?.url.pathname).toBe(
      "/computeMetadata/v1/instance/service-accounts/gmsa-expand@my-project.iam.gserviceaccount.com/token",
    );
  });

  it("defaults to metadata.google.internal, as Google's runtimes serve it", () => {
    expect(buildGcpMetadataTokenUrl({}).toString()).toBe(`http://metadata.google.internal${TOKEN_PATH}`);
  });

  it("reuses the token until expires_in less the refresh skew, then fetches again", async () => {
    const { source, clock } = createSource((index) => issued(3599, `${ACCESS_TOKEN}-${index}`));
    expect(await source.getCredential()).toMatchObject({ token: `${ACCESS_TOKEN}-0` });
    clock.now = T0 + 3599_000 - 60_001;
    expect(await source.getCredential()).toMatchObject({ token: `${ACCESS_TOKEN}-0` });
    expect(server.requests).toHaveLength(1);
    clock.now = T0 + 3599_000 - 60_000;
    expect(await source.getCredential()).toEqual({
      token: `${ACCESS_TOKEN}-1`,
      expirationTimestamp: new Date(clock.now + 3599_000).toISOString(),
    });
    expect(server.requests).toHaveLength(2);
  });

  it("fetches again at once when the API server refuses the token (invalidate)", async () => {
    const { source } = createSource((index) => issued(3599, `${ACCESS_TOKEN}-${index}`));
    const first = await source.getCredential();
    source.invalidate(first);
    expect(await source.getCredential()).toMatchObject({ token: `${ACCESS_TOKEN}-1` });
  });

  it.each([
    ["a 403", { status: 403, headers: GOOGLE, body: "Forbidden" }, /^Google metadata server refused: HTTP 403 Forbidden$/],
    ["a 500 that echoes a token", { status: 500, headers: GOOGLE, body: { access_token: ACCESS_TOKEN } }, /refused: HTTP 500 Internal Server Error$/],
    ["an answer without Metadata-Flavor: Google", { ...issued(3599), headers: {} }, /without the Metadata-Flavor: Google header/],
    ["a body that is not JSON", { status: 200, headers: GOOGLE, body: `access_token=${ACCESS_TOKEN}` }, /HTTP 200 with a body that is not JSON/],
    ["no access_token", { status: 200, headers: GOOGLE, body: { expires_in: 3599, token_type: "Bearer" } }, /answered without access_token$/],
    ["no expires_in", { status: 200, headers: GOOGLE, body: { access_token: ACCESS_TOKEN, token_type: "Bearer" } }, /without a positive expires_in/],
    ["expires_in as text", { status: 200, headers: GOOGLE, body: { access_token: ACCESS_TOKEN, expires_in: "3599" } }, /without a positive expires_in/],
    ["another token_type", { status: 200, headers: GOOGLE, body: { access_token: ACCESS_TOKEN, expires_in: 3599, token_type: "MAC" } }, /token_type other than Bearer/],
  ])("refuses %s with a CredentialsError that names it and holds no token", async (_, answer, message) => {
    const { source } = createSource(() => answer);
    await expectRefusal(source.getCredential(), message, SECRETS);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up on a metadata server that does not answer within timeoutMs, or cannot be reached", async () => {
    const slow = createSource(() => "hang", { timeoutMs: 50 });
    await expectRefusal(slow.source.getCredential(), /^Google metadata server did not answer within 50 ms$/, SECRETS);
    const gone = createSource(() => "hang", { host: `127.0.0.1:${await freePort()}` });
    await expectRefusal(gone.source.getCredential(), /^Google metadata server could not be reached \(ECONNREFUSED\)$/, SECRETS);
  });

  it("refuses a host or service account that would change the URL, and a bad timeout, with a TypeError", () => {
    expect(() => createGcpMetadataTokenSource({ host: "evil.example/x?", shareInFlight: true })).toThrow(/not host or host:port/);
    expect(() => createGcpMetadataTokenSource({ host: "169.254.169.254", serviceAccount: "../../x", shareInFlight: true })).toThrow(
      /not default or an email/,
    );
    expect(() => createGcpMetadataTokenSource({ timeoutMs: 1.5, shareInFlight: true })).toThrow(/timeoutMs/);
    expect(buildGcpMetadataTokenUrl({ host: "[::1]:8080" }).host).toBe("[::1]:8080");
  });
});
