/** CLOUD_TOKEN=eks: a `k8s-aws-v1.` token presigned locally with the function's AWS keys (../eks.ts); Workers too. */
import type { CloudTokenSettings } from "../cloud-token-source.ts";
import type { Cloud } from "./cloud.ts";

const AWS_REGION: [RegExp, string] = [/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, "an AWS region name (like eu-west-1)"];

export const eks = {
  kind: "eks",
  variables: ["EKS_CLUSTER_NAME", "EKS_REGION"],
  formats: {
    // Outposts cluster ids (UUIDs) fit too.
    EKS_CLUSTER_NAME: [
      /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/,
      "an EKS cluster name (1 to 100 letters, digits, '-' and '_', starting with a letter or digit)",
    ],
    EKS_REGION: AWS_REGION,
    AWS_REGION,
    AWS_DEFAULT_REGION: AWS_REGION,
  },
  read({ read, label, first, requireSet }) {
    const { problems } = read;
    const cluster = first("EKS_CLUSTER_NAME");
    if (cluster === undefined) problems.push(`${label("EKS_CLUSTER_NAME")} not set (the EKS cluster's name)`);
    const region = first("EKS_REGION", "AWS_REGION", "AWS_DEFAULT_REGION");
    const flag = label("EKS_REGION");
    if (region === undefined)
      problems.push(`no AWS region: ${flag === "EKS_REGION" ? "set EKS_REGION or" : `pass ${flag} or set`} AWS_REGION`);
    requireSet(
      ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
      (unset) => `no AWS credentials in the environment: ${unset} (only static keys are read, as Lambda provides them)`,
    );
    const accessKeyId = read.optional("AWS_ACCESS_KEY_ID");
    const secretAccessKey = read.optional("AWS_SECRET_ACCESS_KEY");
    if (cluster === undefined || region === undefined || accessKeyId === undefined || secretAccessKey === undefined)
      return undefined;
    return {
      kind: "eks",
      cluster,
      region,
      credentials: { accessKeyId, secretAccessKey, sessionToken: read.optional("AWS_SESSION_TOKEN") },
    };
  },
} as const satisfies Cloud<Extract<CloudTokenSettings, { kind: "eks" }>>;
