/** CLOUD_TOKEN=gke: the service account's access token from Google's metadata server. */
import type { CloudTokenSettings } from "../cloud-token-source.ts";
import type { Cloud } from "./cloud.ts";

export const gke = {
  kind: "gke",
  variables: ["GKE_SERVICE_ACCOUNT"],
  formats: {
    GCE_METADATA_HOST: [/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/, "host or host:port"],
    GKE_SERVICE_ACCOUNT: [/^(?:default|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)$/, "default or a service account's email"],
  },
  unreachable: "the metadata server answers only inside Google's runtimes",
  read: ({ read, first }) => ({
    kind: "gke",
    host: first("GCE_METADATA_HOST") ?? read.text("GCE_METADATA_HOST"),
    serviceAccount: first("GKE_SERVICE_ACCOUNT") ?? read.text("GKE_SERVICE_ACCOUNT"),
  }),
} as const satisfies Cloud<Extract<CloudTokenSettings, { kind: "gke" }>>;
