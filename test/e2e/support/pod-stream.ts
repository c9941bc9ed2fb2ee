import type { LocalClusterInfo } from "../../../infra/local/index.ts";
import { gmsaPod } from "./install-checks.ts";
import { createPod } from "./pods.ts";

/** What {@link startPodStream} counted: creates admitted with the contents inlined, and the others by status. */
export interface PodStreamCounts {
  admitted: number;
  refused: { status: number; message?: string }[];
}

/** A running stream; `stop` waits for the create in flight and returns the counts since the last `stop`. */
export interface PodStream {
  stop(): Promise<PodStreamCounts>;
}

/**
 * Creates a pod of `gmsa-app` naming webapp01 (server-side dry run: the same admission, nothing stored) every
 * `intervalMs` until stopped, as a workload would during a change. A create counts as admitted only when it came
 * back 201 with the contents inlined, so a pod that slipped past expand counts as refused too.
 */
export function startPodStream(cluster: LocalClusterInfo, group: string, intervalMs = 500): PodStream {
  const counts: PodStreamCounts = { admitted: 0, refused: [] };
  let running = true;
  let n = 0;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      const created = await createPod(cluster, gmsaPod(group, `stream-${n++}`, "gmsa-app"), { dryRun: true });
      if (created.status === 201 && created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)
        counts.admitted++;
      else counts.refused.push({ status: created.status, message: created.body.message });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return counts;
    },
  };
}
