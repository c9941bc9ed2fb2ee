import { describe, expect, it } from "vitest";
import { parseKubeSettings, readConfig, readCloudTokenSettings, VARIABLES } from "../../../../shared/config/index.ts";
import { expectNoSecrets } from "../../../support/no-secrets.ts";

// Fake secrets: no problem may hold them.
const AWS = {
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  AWS_SESSION_TOKEN: "FAKE+session/token==",
};
const IDENTITY_HEADER = "fake-identity-header-5b1c";
const SECRETS = [AWS.AWS_ACCESS_KEY_ID, AWS.AWS_SECRET_ACCESS_KEY, AWS.AWS_SESSION_TOKEN, IDENTITY_HEADER];
const AZURE = { IDENTITY_ENDPOINT: "http://127.0.0.1:41741/msi/token", IDENTITY_HEADER };

describe("CLOUD_TOKEN", () => {
  it("is off by default, and the platform's own variables alone do not turn it on or count as a problem", () => {
    const { settings, problems } = parseKubeSettings({
      ...AWS,
      AWS_REGION: "eu-west-1",
      ...AZURE,
      AZURE_CLIENT_ID: "c",
      GCE_METADATA_HOST: "127.0.0.1:1",
    });
    expect(problems).toEqual([]);
    expect(settings.cloudToken).toBeUndefined();
  });

  it("eks: reads the cluster, EKS_REGION before AWS_REGION before AWS_DEFAULT_REGION, and the Lambda credentials", () => {
    const env = {
      CLOUD_TOKEN: "eks",
      EKS_CLUSTER_NAME: "gmsa-prod",
      AWS_REGION: "eu-west-1",
      AWS_DEFAULT_REGION: "us-east-1",
      ...AWS,
    };
    const { settings, problems } = parseKubeSettings(env);
    expect(problems).toEqual([]);
    expect(settings.cloudToken).toEqual({
      kind: "eks",
      cluster: "gmsa-prod",
      region: "eu-west-1",
      credentials: {
        accessKeyId: AWS.AWS_ACCESS_KEY_ID,
        secretAccessKey: AWS.AWS_SECRET_ACCESS_KEY,
        sessionToken: AWS.AWS_SESSION_TOKEN,
      },
    });
    expect(parseKubeSettings({ ...env, EKS_REGION: "ap-south-1" }).settings.cloudToken).toMatchObject({
      region: "ap-south-1",
    });
    const { AWS_SESSION_TOKEN: _, ...longTerm } = AWS;
    expect(
      parseKubeSettings({ CLOUD_TOKEN: "eks", EKS_CLUSTER_NAME: "c", AWS_DEFAULT_REGION: "us-east-1", ...longTerm })
        .settings.cloudToken,
    ).toEqual({
      kind: "eks",
      cluster: "c",
      region: "us-east-1",
      credentials: { accessKeyId: AWS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS.AWS_SECRET_ACCESS_KEY },
    });
  });

  it("aks: reads the endpoint and header, AKS_CLIENT_ID before AZURE_CLIENT_ID, the AKS server id by default", () => {
    expect(parseKubeSettings({ CLOUD_TOKEN: "aks", ...AZURE }).settings.cloudToken).toEqual({
      kind: "aks",
      ...{ endpoint: AZURE.IDENTITY_ENDPOINT, identityHeader: IDENTITY_HEADER },
      resource: VARIABLES.AKS_SERVER_ID.default,
    });
    const env = {
      CLOUD_TOKEN: "aks",
      ...AZURE,
      AZURE_CLIENT_ID: "azure",
      AKS_CLIENT_ID: "aks",
      AKS_SERVER_ID: "api://custom",
    };
    expect(parseKubeSettings(env)).toMatchObject({
      settings: { cloudToken: { clientId: "aks", resource: "api://custom" } },
      problems: [],
    });
    expect(
      parseKubeSettings({ CLOUD_TOKEN: "aks", ...AZURE, AZURE_CLIENT_ID: "azure" }).settings.cloudToken,
    ).toMatchObject({ clientId: "azure" });
  });

  it("gke: reads the metadata host and service account, with Google's defaults", () => {
    expect(parseKubeSettings({ CLOUD_TOKEN: "gke" })).toMatchObject({
      settings: { cloudToken: { kind: "gke", host: "metadata.google.internal", serviceAccount: "default" } },
      problems: [],
    });
    const env = {
      CLOUD_TOKEN: "gke",
      GCE_METADATA_HOST: "127.0.0.1:8080",
      GKE_SERVICE_ACCOUNT: "gmsa@p.iam.gserviceaccount.com",
    };
    expect(parseKubeSettings(env).settings.cloudToken).toMatchObject({
      host: "127.0.0.1:8080",
      serviceAccount: "gmsa@p.iam.gserviceaccount.com",
    });
  });

  it("eks: reports every problem together, never a key or session token", () => {
    const { AWS_ACCESS_KEY_ID: _, ...withoutId } = AWS;
    const { settings, problems } = parseKubeSettings({
      CLOUD_TOKEN: "eks",
      EKS_CLUSTER_NAME: "prod/x",
      AWS_REGION: "Europe",
      ...withoutId,
      AKS_SERVER_ID: "s",
      GKE_SERVICE_ACCOUNT: "default",
    });
    expect(problems).toEqual([
      'AKS_SERVER_ID is set but CLOUD_TOKEN is "eks": unset it',
      'GKE_SERVICE_ACCOUNT is set but CLOUD_TOKEN is "eks": unset it',
      `CLOUD_TOKEN=eks: EKS_CLUSTER_NAME "prod/x" is not an EKS cluster name (1 to 100 letters, digits, '-' and '_', starting with a letter or digit)`,
      'CLOUD_TOKEN=eks: AWS_REGION "Europe" is not an AWS region name (like eu-west-1)',
      "CLOUD_TOKEN=eks: no AWS credentials in the environment: AWS_ACCESS_KEY_ID not set (only static keys are read, as Lambda provides them)",
    ]);
    expect(settings.cloudToken).toBeUndefined();
    expectNoSecrets(problems.join("\n"), SECRETS);
    expect(parseKubeSettings({ CLOUD_TOKEN: "eks" }).problems).toEqual([
      "CLOUD_TOKEN=eks: EKS_CLUSTER_NAME not set (the EKS cluster's name)",
      "CLOUD_TOKEN=eks: no AWS region: set EKS_REGION or AWS_REGION",
      "CLOUD_TOKEN=eks: no AWS credentials in the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY not set (only static keys are read, as Lambda provides them)",
    ]);
  });

  it("aks and gke: report a missing header, a bad endpoint, host and account, never the header", () => {
    const aks = parseKubeSettings({
      CLOUD_TOKEN: "aks",
      IDENTITY_ENDPOINT: "file:///etc/passwd",
      IDENTITY_HEADER,
      EKS_REGION: "eu-west-1",
    });
    expect(aks.problems).toEqual([
      'EKS_REGION is set but CLOUD_TOKEN is "aks": unset it',
      'CLOUD_TOKEN=aks: IDENTITY_ENDPOINT "file:///etc/passwd" is not an http(s) URL',
    ]);
    expectNoSecrets(aks.problems.join("\n"), SECRETS);
    expect(parseKubeSettings({ CLOUD_TOKEN: "aks", IDENTITY_ENDPOINT: AZURE.IDENTITY_ENDPOINT }).problems).toEqual([
      "CLOUD_TOKEN=aks: no managed identity endpoint: IDENTITY_HEADER not set (App Service and Azure Functions set them for an app with a managed identity)",
    ]);
    const gke = parseKubeSettings({
      CLOUD_TOKEN: "gke",
      GCE_METADATA_HOST: "evil/path",
      GKE_SERVICE_ACCOUNT: "someone",
      AKS_CLIENT_ID: "c",
    });
    expect(gke.problems).toEqual([
      'AKS_CLIENT_ID is set but CLOUD_TOKEN is "gke": unset it',
      'CLOUD_TOKEN=gke: GCE_METADATA_HOST "evil/path" is not host or host:port',
      `CLOUD_TOKEN=gke: GKE_SERVICE_ACCOUNT "someone" is not default or a service account's email`,
    ]);
  });

  it("refuses an unknown source, and a source's own variable without CLOUD_TOKEN", () => {
    expect(parseKubeSettings({ CLOUD_TOKEN: "azure" }).problems).toEqual([
      'CLOUD_TOKEN must be one of eks, aks, gke, not "azure"',
    ]);
    expect(parseKubeSettings({ EKS_CLUSTER_NAME: "prod", GKE_SERVICE_ACCOUNT: "default" }).problems).toEqual([
      "EKS_CLUSTER_NAME is set but CLOUD_TOKEN is not: set CLOUD_TOKEN or unset EKS_CLUSTER_NAME",
      "GKE_SERVICE_ACCOUNT is set but CLOUD_TOKEN is not: set CLOUD_TOKEN or unset GKE_SERVICE_ACCOUNT",
    ]);
  });

  it("reports its problems with every other section's at start-up", () => {
    const env = {
      CALLER_AUTH: "bearer",
      CLOUD_TOKEN: "eks",
      EKS_CLUSTER_NAME: "c",
      AWS_REGION: "eu-west-1",
      AWS_SECRET_ACCESS_KEY: AWS.AWS_SECRET_ACCESS_KEY,
    };
    expect(() => readConfig(env, "lambda")).toThrow(
      expect.objectContaining({
        problems: [
          "CALLER_AUTH=bearer needs CALLER_AUTH_TOKENS (comma-separated accepted tokens)",
          "CLOUD_TOKEN=eks: no AWS credentials in the environment: AWS_ACCESS_KEY_ID not set (only static keys are read, as Lambda provides them)",
        ],
      }),
    );
  });
});

describe("readCloudTokenSettings (shared with gmsa-webhooks token)", () => {
  it("names a variable by the flag the caller sets it with", () => {
    const flags = { EKS_CLUSTER_NAME: "--cluster", EKS_REGION: "--region" };
    expect(readCloudTokenSettings({ ...AWS, EKS_CLUSTER_NAME: "a b" }, "eks", flags).problems).toEqual([
      `--cluster "a b" is not an EKS cluster name (1 to 100 letters, digits, '-' and '_', starting with a letter or digit)`,
      "no AWS region: pass --region or set AWS_REGION",
    ]);
  });
});
