/** Names and bounds of the cloud token sources for configuration parsing, apart from the sources (loaded only when chosen). */

/** The clouds whose own identity can be a token source (CLOUD_TOKEN, `gmsa-webhooks token <kind>`). */
export const CLOUD_TOKENS = ["eks", "aks", "gke"] as const;
export type CloudTokenKind = (typeof CLOUD_TOKENS)[number];

/** The application id of "Azure Kubernetes Service AAD Server", the audience every AKS cluster with Entra ID accepts. */
export const AKS_SERVER_APP_ID = "6dae42f8-4368-4678-94ff-3960e28e3630";

/** EKS: 1-100 letters, digits, '-' and '_', starting alphanumeric. Outposts cluster ids (UUIDs) fit too. */
export const EKS_CLUSTER_NAME_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/;
/** Region names only (`eu-west-1`): the region becomes part of a host name. */
export const AWS_REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/** Where Google's runtimes serve their metadata. Google's client libraries take `GCE_METADATA_HOST` instead. */
export const GCP_METADATA_HOST = "metadata.google.internal";

/** A host name, IPv4 or bracketed IPv6, and an optional port: nothing that could change the URL's path. */
export const GCP_METADATA_HOST_PATTERN = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** `default` or a service account's email. */
export const GCP_SERVICE_ACCOUNT_PATTERN = /^(?:default|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)$/;
