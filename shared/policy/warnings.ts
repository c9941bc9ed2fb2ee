import { truncate } from "./checks.ts";
import type { OptionsPlace } from "./walk.ts";

/** The only accounts that use the GMSA identity on the network (the windowsOptions KEP). */
const NETWORK_IDENTITY_USERS = new Set(["nt authority\\system", "nt authority\\network service"]);

/**
 * Warnings for containers that have a GMSA but run as an account that will not use it on the network:
 * `runAsUserName` explicitly set (on the container, or inherited from the pod) to anything else. `places` is
 * the pod's walk, pod first.
 */
export function listRunAsUserWarnings(places: readonly OptionsPlace[]): string[] {
  const [podPlace, ...containers] = places;
  const warnings: string[] = [];
  for (const place of containers) {
    const name = place.options?.gmsaCredentialSpecName ?? podPlace?.options?.gmsaCredentialSpecName;
    const user = place.options?.runAsUserName ?? podPlace?.options?.runAsUserName;
    if (name === undefined || user === undefined || NETWORK_IDENTITY_USERS.has(user.toLowerCase())) continue;
    warnings.push(
      `${place.label} uses GMSA credspec "${name}" but runs as "${truncate(user, 40)}"; only NT AUTHORITY\\SYSTEM and NT AUTHORITY\\NETWORK SERVICE use the GMSA identity on the network`,
    );
  }
  return warnings;
}
