/**
 * EKS tokens without the AWS CLI: the `k8s-aws-v1.` token of `aws eks get-token`, a SigV4-presigned `sts:GetCallerIdentity`
 * URL whose signed `x-k8s-aws-id` header names the cluster; aws-iam-authenticator calls it and maps the caller's IAM
 * ARN to a user. Signing is local Web Crypto (aws4fetch), so this runs on Lambda, Node and Workers alike.
 */
import { AwsV4Signer } from "aws4fetch";

/** What {@link presignEksToken} needs (shared/config checks it). */
export interface EksTokenOptions {
  /** The EKS cluster name (or an Outposts local cluster's id): the signed `x-k8s-aws-id` header. */
  cluster: string;
  /** The STS region, e.g. `eu-west-1`: the regional endpoint is used. */
  region: string;
  /** The static AWS credentials Lambda puts in its environment; `sessionToken` for temporary ones. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined };
}

/** aws-iam-authenticator accepts a token for 15 minutes after its X-Amz-Date; `aws eks get-token` reports 14, as we do. */
const TOKEN_LIFETIME_MS = 14 * 60_000;

// The order botocore writes a presigned STS URL in, so our token is byte for byte what `aws eks get-token` prints
// for the same instant. The signature does not depend on it (SigV4 sorts the canonical query).
const QUERY_ORDER = [
  "Action",
  "Version",
  "X-Amz-Algorithm",
  "X-Amz-Credential",
  "X-Amz-Date",
  "X-Amz-Expires",
  "X-Amz-SignedHeaders",
  "X-Amz-Security-Token",
  "X-Amz-Signature",
];

/** RFC 3986 percent-encoding (all but A-Z a-z 0-9 - _ . ~), as botocore and SigV4 encode query values. */
function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Presigns GetCallerIdentity for `options.cluster` at `epochMs` (whole seconds: SigV4 dates have no milliseconds). */
export async function presignEksToken(
  options: EksTokenOptions,
  epochMs: number,
): Promise<{ token: string; expirationTimestamp: string }> {
  const { accessKeyId, secretAccessKey, sessionToken } = options.credentials;
  // The regional STS endpoint; China's partition has its own domain.
  const domain = options.region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
  const signer = new AwsV4Signer({
    method: "GET",
    // X-Amz-Expires: seconds the presigned URL is valid for STS, as `aws eks get-token` signs it.
    url: `https://sts.${options.region}.${domain}/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60`,
    // Every header given is signed: X-Amz-SignedHeaders becomes host;x-k8s-aws-id, as the authenticator requires.
    headers: { "x-k8s-aws-id": options.cluster },
    accessKeyId,
    secretAccessKey,
    ...(sessionToken === undefined ? {} : { sessionToken }),
    service: "sts",
    region: options.region,
    // YYYYMMDDTHHMMSSZ
    datetime: new Date(epochMs).toISOString().replace(/[:-]|\.\d{3}/g, ""),
    signQuery: true,
  });
  const { origin, pathname, searchParams } = (await signer.sign()).url;
  const params = [...searchParams].sort(([a], [b]) => QUERY_ORDER.indexOf(a) - QUERY_ORDER.indexOf(b));
  const query = params.map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`).join("&");
  const signed = `${origin}${pathname}?${query}`;
  const expiresAt = Math.floor(epochMs / 1000) * 1000 + TOKEN_LIFETIME_MS;
  // Base64url without padding, as `aws eks get-token` encodes the URL (ASCII: a URL is percent-encoded).
  const encoded = btoa(signed).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return { token: `k8s-aws-v1.${encoded}`, expirationTimestamp: new Date(expiresAt).toISOString() };
}
