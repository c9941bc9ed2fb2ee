import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTokenCommand } from "../../../cli/token.ts";
import { expectNoSecrets } from "../../support/no-secrets.ts";
import { startTokenEndpointServer, type TokenEndpointServer } from "../../support/token-endpoint-server.ts";
import { fakeIo } from "../../support/fake-io.ts";
import { runCli, type Run } from "../../support/run-child.ts";

// Fake secrets: no output but stdout on success may hold them.
const AWS_ENV = {
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  AWS_SESSION_TOKEN: "IQoJb3JpZ2luX2VjEFAKE+session/token==",
};
const IDENTITY_HEADER = "fake-identity-header-0d93aa";
const ACCESS_TOKEN = "fake-access-token-41c7e2";
const SECRETS = [AWS_ENV.AWS_SECRET_ACCESS_KEY, AWS_ENV.AWS_SESSION_TOKEN, IDENTITY_HEADER, ACCESS_TOKEN];

// The real bin in a child process, as a kubeconfig's `command: npx` runs it, with only the environment given.
const runBin = (args: string[], env: Record<string, string>) => runCli(args, { env });

interface ExecCredential {
  apiVersion: string;
  kind: string;
  status: { token: string; expirationTimestamp: string };
}

/** Exit 0, an ExecCredential on stdout and nothing on stderr. */
function expectExecCredential(run: Run): ExecCredential {
  expect(run).toMatchObject({ code: 0, stderr: "" });
  const credential = JSON.parse(run.stdout) as ExecCredential;
  expect(Object.keys(credential.status).sort()).toEqual(["expirationTimestamp", "token"]);
  expect(credential.status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  return credential;
}

/** Exit 1, nothing on stdout, a message matching `message` on stderr and no secret anywhere. */
function expectFailure(run: Run, message: RegExp): void {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(message);
  expectNoSecrets(run.stderr, SECRETS);
}

const minutesFromNow = (timestamp: string): number => (Date.parse(timestamp) - Date.now()) / 60_000;
/** The STS URL a `k8s-aws-v1.` token presigns. */
const presigned = ({ status }: ExecCredential) => new URL(Buffer.from(status.token.slice(11), "base64url").toString());

let server: TokenEndpointServer;
beforeAll(async () => {
  server = await startTokenEndpointServer(() => ({ status: 500 }));
});
afterAll(() => server.close());

describe("gmsa-webhooks token eks (the bin)", () => {
  it("prints a v1 ExecCredential with a k8s-aws-v1. token valid 14 minutes, from the AWS environment", async () => {
    const run = await runBin(["token", "eks", "--cluster", "prod"], {
      ...AWS_ENV,
      AWS_REGION: "eu-west-1",
      AWS_DEFAULT_REGION: "us-east-1",
    });
    const credential = expectExecCredential(run);
    expect(credential).toMatchObject({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential" });
    expect(credential.status.token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = presigned(credential);
    expect(url.host).toBe("sts.eu-west-1.amazonaws.com");
    expect(url.searchParams.get("X-Amz-Security-Token")).toBe(AWS_ENV.AWS_SESSION_TOKEN);
    expect(minutesFromNow(credential.status.expirationTimestamp)).toBeGreaterThan(13.5);
    expect(minutesFromNow(credential.status.expirationTimestamp)).toBeLessThanOrEqual(14);
  });

  // The apiVersion KUBERNETES_EXEC_INFO asks for, v1beta1 included: runTokenCommand below.
  it("takes --region over the environment", async () => {
    const run = await runBin(["token", "eks", "--cluster", "prod", "--region", "ap-south-1"], {
      ...AWS_ENV,
      AWS_DEFAULT_REGION: "us-east-1",
    });
    expect(presigned(expectExecCredential(run)).origin).toBe("https://sts.ap-south-1.amazonaws.com");
  });

  it("exits 1 naming what is missing, without printing a key or session token", async () => {
    const { AWS_SECRET_ACCESS_KEY: _, ...withoutSecret } = AWS_ENV;
    expectFailure(
      await runBin(["token", "eks", "--cluster", "prod"], { ...withoutSecret, AWS_REGION: "eu-west-1" }),
      /^gmsa-webhooks token eks: no AWS credentials in the environment: AWS_SECRET_ACCESS_KEY not set/,
    );
    expectFailure(
      await runBin(["token", "eks", "--cluster", "prod"], AWS_ENV),
      /^gmsa-webhooks token eks: no AWS region: pass --region or set AWS_REGION\n$/,
    );
  });
});

describe("gmsa-webhooks token aks (the bin)", () => {
  const env = () => ({ IDENTITY_ENDPOINT: `${server.origin}/msi/token`, IDENTITY_HEADER });

  // The endpoint's query and header, and the variables read: test/unit/shared/credentials/cloud-token-source.test.ts
  // and test/unit/shared/config/cloud-token.test.ts (the reader this command shares).
  it("asks the managed identity endpoint for --client-id's identity and prints the token until expires_on", async () => {
    const expiresOn = Math.floor(Date.now() / 1000) + 3600;
    server.requests.length = 0;
    server.script = () => ({
      status: 200,
      body: { access_token: ACCESS_TOKEN, expires_on: String(expiresOn), token_type: "Bearer" },
    });
    const credential = expectExecCredential(await runBin(["token", "aks", "--client-id", "client-1"], env()));
    expect(credential.status).toEqual({
      token: ACCESS_TOKEN,
      expirationTimestamp: new Date(expiresOn * 1000).toISOString().replace(".000Z", "Z"),
    });
    expect(server.requests.map((request) => request.url.searchParams.get("client_id"))).toEqual(["client-1"]);
  });

  it("exits 1 when the endpoint refuses, without printing the header or a token", async () => {
    server.script = () => ({
      status: 403,
      body: { error: "forbidden", access_token: ACCESS_TOKEN, echo: IDENTITY_HEADER },
    });
    expectFailure(
      await runBin(["token", "aks"], env()),
      /^gmsa-webhooks token aks: Azure managed identity endpoint refused: HTTP 403 Forbidden \(error "forbidden"\)\n$/,
    );
  });
});

describe("gmsa-webhooks token gke (the bin)", () => {
  it("prints the metadata server's token until expires_in, from GCE_METADATA_HOST", async () => {
    const body = { access_token: ACCESS_TOKEN, expires_in: 1800, token_type: "Bearer" };
    server.script = () => ({ status: 200, headers: { "Metadata-Flavor": "Google" }, body });
    const credential = expectExecCredential(await runBin(["token", "gke"], { GCE_METADATA_HOST: server.host }));
    expect(credential.status.token).toBe(ACCESS_TOKEN);
    expect(minutesFromNow(credential.status.expirationTimestamp)).toBeGreaterThan(29);
    expect(minutesFromNow(credential.status.expirationTimestamp)).toBeLessThanOrEqual(30);
  });

  // GKE_SERVICE_ACCOUNT's token path: cloud-token.test.ts and cloud-token-source.test.ts (unit), as for aks above.
  it("reports bad GCE_METADATA_HOST and GKE_SERVICE_ACCOUNT values together (exit 1)", async () => {
    const run = await runBin(["token", "gke"], { GCE_METADATA_HOST: "evil/path", GKE_SERVICE_ACCOUNT: "x" });
    expectFailure(
      run,
      /^gmsa-webhooks token gke: GCE_METADATA_HOST "evil\/path" is not host or host:port\ngmsa-webhooks token gke: GKE_SERVICE_ACCOUNT "x" is not default or a service account's email/,
    );
  });
});

describe("gmsa-webhooks token usage", () => {
  it.each([
    ["no provider", ["token"], /missing provider: one of eks, aks, gke/],
    ["an unknown provider", ["token", "doks"], /expected one provider \(eks, aks, gke\), got "doks"/],
    ["eks without --cluster", ["token", "eks"], /eks needs --cluster <name>/],
    ["an option of another provider", ["token", "gke", "--cluster", "x"], /--cluster does not apply to gke/],
    ["an unknown option", ["token", "eks", "--clutser", "x"], /Unknown option '--clutser'/],
  ])("exits 2 on %s", async (_, args, message) => {
    const run = await runBin(args, AWS_ENV);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
  });

  it("prints help on stdout (exit 0) with an npx example that never fetches from the registry (--no), and the main help lists the command", async () => {
    const run = await runBin(["token", "--help"], {});
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^Usage: gmsa-webhooks token <eks \| aks \| gke> \[options\]/);
    expect(run.stdout).toMatch(/command npx, args \[--no, gmsa-webhooks, token, eks, /);
    expect(run.stdout).not.toMatch(/args \[gmsa-webhooks/);
    expect((await runBin(["--help"], {})).stdout).toMatch(/token {9}print an ExecCredential/);
  });
});

describe("runTokenCommand", () => {
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    const io = fakeIo({ env: { ...AWS_ENV, ...env } });
    return { code: await runTokenCommand(argv, io), out: io.out, err: io.err };
  };

  it("refuses an empty flag (2)", async () => {
    expect(await run(["aks", "--client-id", ""])).toEqual({
      code: 2,
      out: "",
      err: "gmsa-webhooks token: --client-id is empty\nRun 'gmsa-webhooks token --help' for usage.\n",
    });
  });

  it.each([
    [undefined, "client.authentication.k8s.io/v1"],
    ["not json", "client.authentication.k8s.io/v1"],
    ['{"apiVersion":"client.authentication.k8s.io/v1alpha1"}', "client.authentication.k8s.io/v1"],
    ['{"apiVersion":"client.authentication.k8s.io/v1beta1"}', "client.authentication.k8s.io/v1beta1"],
  ])(
    "answers with the version KUBERNETES_EXEC_INFO %j asks for if client-go speaks it, else v1",
    async (info, apiVersion) => {
      const { code, out } = await run(
        ["eks", "--cluster", "c", "--region", "eu-west-1"],
        info === undefined ? {} : { KUBERNETES_EXEC_INFO: info },
      );
      expect(code).toBe(0);
      expect((JSON.parse(out) as ExecCredential).apiVersion).toBe(apiVersion);
    },
  );
});
