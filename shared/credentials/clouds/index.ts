/** The clouds whose own identity can be a token source (CLOUD_TOKEN, `gmsa-webhooks token <kind>`), in the order messages list them. */
import type { CloudTokenSettings } from "../cloud-token-source.ts";
import { aks } from "./aks.ts";
import type { Cloud } from "./cloud.ts";
import { eks } from "./eks.ts";
import { gke } from "./gke.ts";

export type { CloudReadContext } from "./cloud.ts";

const KINDS = [eks, aks, gke] as const;
export type CloudTokenKind = (typeof KINDS)[number]["kind"];

/** Every cloud; a new one is a file beside this one, an entry here, and its source in ../cloud-token-source.ts. */
export const CLOUDS: readonly Cloud<CloudTokenSettings>[] = KINDS;

/** The clouds' names. */
export const CLOUD_TOKENS: readonly CloudTokenKind[] = KINDS.map((cloud) => cloud.kind);

/** The cloud named `kind`. */
export function findCloud(kind: CloudTokenKind): Cloud<CloudTokenSettings> {
  // Every kind names a cloud of the set.
  return CLOUDS.find((cloud) => cloud.kind === kind)!;
}
