/**
 * The EKS token against a second implementation: Debian's awscli (`aws eks get-token`, presigning offline with fake
 * credentials) and the botocore it vendors, which re-computes our signature for our X-Amz-Date.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { DebianAwsCli } from "../../../../infra/local/awscli.ts";
import { preparedAwsCli } from "../../../support/prepared.ts";
import { createCloudTokenSource } from "../../../../shared/credentials/cloud-token-source.ts";
import { presignEksToken, type EksTokenOptions } from "../../../../shared/credentials/eks.ts";
import { expectRefusal } from "../../../support/no-secrets.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { run } from "../../support/run.ts";

const BOTOCORE_PRESIGN = fileURLToPath(new URL("../../../support/botocore-presign.py", import.meta.url));

// AWS's documented example key, and a session token with the characters base64 gives it (+ / =).
const CREDENTIALS: Required<EksTokenOptions["credentials"]> = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "IQoJb3JpZ2luX2VjEFAKE+session/token==",
};
const SECRETS = [CREDENTIALS.secretAccessKey, CREDENTIALS.sessionToken ?? ""];

let cli: DebianAwsCli;
let home: string;

beforeAll(async () => {
  cli = preparedAwsCli();
  home = await tempDir("gmsa-aws-");
  // Empty config and credentials files: only the environment speaks.
  await writeFile(join(home, "empty"), "");
});

/** Decodes a `k8s-aws-v1.` token back to its presigned URL. */
function decodeToken(token: string): URL {
  expect(token.startsWith("k8s-aws-v1.")).toBe(true);
  const encoded = token.slice("k8s-aws-v1.".length);
  expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
  return new URL(Buffer.from(encoded, "base64url").toString("utf8"));
}

/** `aws eks get-token` with the fake credentials in its environment and nothing else to read. */
async function awsGetToken(
  cluster: string,
  region: string,
): Promise<{ token: string; expirationTimestamp: string; apiVersion: string }> {
  const empty = join(home, "empty");
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: home,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_CONFIG_FILE: empty,
    AWS_SHARED_CREDENTIALS_FILE: empty,
  };
  const args = ["eks", "get-token", "--cluster-name", cluster, "--region", region, "--output", "json"];
  const { stdout } = await run(cli.aws, args, { env, timeout: 60_000 });
  const parsed = JSON.parse(stdout) as { apiVersion: string; status: { token: string; expirationTimestamp: string } };
  return { ...parsed.status, apiVersion: parsed.apiVersion };
}

/** botocore's presigned URL for the same request at `amzDate`. */
async function botocorePresign(options: EksTokenOptions, amzDate: string): Promise<URL> {
  const input = JSON.stringify({
    ...options.credentials,
    sessionToken: options.credentials.sessionToken ?? null,
    region: options.region,
    cluster: options.cluster,
    amzDate,
  });
  const child = run(cli.python, [BOTOCORE_PRESIGN, cli.pythonPath], {
    env: { PATH: "/usr/bin:/bin" },
    timeout: 60_000,
  });
  child.child.stdin?.end(input);
  return new URL((await child).stdout.trim());
}

const params = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams);
const amzDateToMs = (date: string): number =>
  Date.parse(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"));

describe("presignEksToken against Debian's awscli", () => {
  it("is byte for byte aws eks get-token's token when signed at its X-Amz-Date, and expires 14 minutes later", async () => {
    const options = { cluster: "gmsa_prod-2", region: "ap-southeast-2", credentials: CREDENTIALS };
    const theirs = await awsGetToken(options.cluster, options.region);
    const signedAt = amzDateToMs(decodeToken(theirs.token).searchParams.get("X-Amz-Date") ?? "");
    const ours = await presignEksToken(options, signedAt);
    expect(ours.token).toBe(theirs.token);
    const url = decodeToken(ours.token);
    expect(url.origin).toBe("https://sts.ap-southeast-2.amazonaws.com");
    expect(params(url)).toMatchObject({
      Action: "GetCallerIdentity",
      Version: "2011-06-15",
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Expires": "60",
      "X-Amz-SignedHeaders": "host;x-k8s-aws-id",
      "X-Amz-Security-Token": CREDENTIALS.sessionToken,
    });
    expect(params(url)["X-Amz-Credential"]).toMatch(/^AKIDEXAMPLE\/\d{8}\/ap-southeast-2\/sts\/aws4_request$/);
    expect(url.searchParams.getAll("X-Amz-Signature")).toHaveLength(1);
    expect(ours.expirationTimestamp).toBe(new Date(signedAt + 14 * 60_000).toISOString());
    // aws reads its clock a moment after signing: the same second, or the next.
    expect(Date.parse(theirs.expirationTimestamp) - Date.parse(ours.expirationTimestamp)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(theirs.expirationTimestamp) - Date.parse(ours.expirationTimestamp)).toBeLessThanOrEqual(2_000);
  });

  it.each([
    ["with a session token", { cluster: "gmsa-prod", region: "us-east-1", credentials: CREDENTIALS }],
    [
      "with long-term keys",
      {
        cluster: "c",
        region: "us-gov-west-1",
        credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: CREDENTIALS.secretAccessKey },
      },
    ],
  ])("signs what botocore signs for our X-Amz-Date (%s)", async (_, options: EksTokenOptions) => {
    const ours = decodeToken((await presignEksToken(options, Date.now())).token);
    const amzDate = ours.searchParams.get("X-Amz-Date") ?? "";
    const theirs = await botocorePresign(options, amzDate);
    console.log(
      `botocore at ${amzDate}: signature ${theirs.searchParams.get("X-Amz-Signature")}, ours ${ours.searchParams.get("X-Amz-Signature")}`,
    );
    expect(ours.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(ours.toString()).toBe(theirs.toString());
  });
});

describe("presignEksToken", () => {
  it("uses China's STS domain for cn- regions", async () => {
    const { token } = await presignEksToken(
      { cluster: "c", region: "cn-north-1", credentials: CREDENTIALS },
      Date.now(),
    );
    expect(decodeToken(token).host).toBe("sts.cn-north-1.amazonaws.com.cn");
  });
});

describe("createCloudTokenSource for eks", () => {
  const T0 = Date.parse("2030-01-01T00:00:00Z");

  it("presigns once and reuses the token until a minute before its 14 minutes are up", async () => {
    const clock = { now: T0 };
    const source = createCloudTokenSource(
      { kind: "eks", cluster: "gmsa-prod", region: "eu-west-1", credentials: CREDENTIALS },
      { shareInFlight: true, now: () => clock.now },
    );
    const first = await source.getCredential();
    expect(first).toEqual({
      token: expect.stringMatching(/^k8s-aws-v1\./) as unknown,
      expirationTimestamp: "2030-01-01T00:14:00.000Z",
    });
    expect(decodeToken((first as { token: string }).token).searchParams.get("X-Amz-Date")).toBe("20300101T000000Z");
    clock.now = T0 + 13 * 60_000 - 1;
    expect(await source.getCredential()).toBe(first);
    clock.now = T0 + 13 * 60_000;
    const second = await source.getCredential();
    expect(second).toEqual({
      token: expect.stringMatching(/^k8s-aws-v1\./) as unknown,
      expirationTimestamp: "2030-01-01T00:27:00.000Z",
    });
    expect(decodeToken((second as { token: string }).token).searchParams.get("X-Amz-Date")).toBe("20300101T001300Z");
  });

  it("reports a signing failure as ERR_CREDENTIALS without the keys", async () => {
    const spy = vi
      .spyOn(crypto.subtle, "importKey")
      .mockRejectedValue(new Error(`bad key ${CREDENTIALS.secretAccessKey}`));
    try {
      const source = createCloudTokenSource(
        { kind: "eks", cluster: "c", region: "eu-west-1", credentials: CREDENTIALS },
        { shareInFlight: true },
      );
      await expectRefusal(source.getCredential(), /^EKS token for cluster "c": signing failed \(Error\)$/, SECRETS);
    } finally {
      spy.mockRestore();
    }
  });
});
