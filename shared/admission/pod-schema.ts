import * as z from "zod/mini";
import "../zod-english.ts";

// Decoded JSON has no undefined values: exactOptional keeps the parsed pod's optional fields free of `| undefined`.
/** A container's or the pod's `securityContext.windowsOptions`: the fields the GMSA rules read, typed. */
export const WindowsOptionsSchema = z.looseObject({
  gmsaCredentialSpecName: z.exactOptional(z.string()),
  gmsaCredentialSpec: z.exactOptional(z.string()),
  runAsUserName: z.exactOptional(z.string()),
  hostProcess: z.exactOptional(z.boolean()),
});
const SecurityContextSchema = z.looseObject({ windowsOptions: z.exactOptional(WindowsOptionsSchema) });

/** A container, init container or ephemeral container. */
export const ContainerSchema = z.looseObject({ name: z.string(), securityContext: z.exactOptional(SecurityContextSchema) });

/**
 * The pod fields the GMSA rules read (core/v1 PodSpec, SecurityContext, WindowsSecurityContextOptions), type-checked;
 * every other field passes through unchanged. The one pod type (shared/policy/pod.ts) is derived from it.
 */
export const PodSchema = z.looseObject({
  metadata: z.exactOptional(
    z.looseObject({
      name: z.exactOptional(z.string()),
      generateName: z.exactOptional(z.string()),
      namespace: z.exactOptional(z.string()),
      annotations: z.exactOptional(z.record(z.string(), z.string())),
    }),
  ),
  spec: z.exactOptional(
    z.looseObject({
      serviceAccountName: z.exactOptional(z.string()),
      hostname: z.exactOptional(z.string()),
      securityContext: z.exactOptional(SecurityContextSchema),
      containers: z.exactOptional(z.array(ContainerSchema)),
      initContainers: z.exactOptional(z.array(ContainerSchema)),
      ephemeralContainers: z.exactOptional(z.array(ContainerSchema)),
    }),
  ),
});
