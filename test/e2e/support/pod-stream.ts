import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { LocalClusterInfo } from "../../../infra/local/index.ts";
import { gmsaPod } from "./install-checks.ts";
import { createPod, parsed } from "./pods.ts";

/** How {@link streamPods} creates. */
export interface PodStreamOptions {
  /** Server-side dry runs: the same admission, nothing stored. */
  dryRun?: boolean;
  /** Creates sent at once, each round; default 1. */
  parallel?: number;
  /** The pause after each round. */
  pauseMs: number;
  /** The contents an admitted pod must carry inlined; default: any. */
  contents?: unknown;
}

/**
 * Creates pods of `gmsa-app` naming webapp01 in `group`, as a workload would, until `stop()`, which resolves with the
 * counts. A create counts as admitted only when it came back 201 with the contents inlined, so a pod that slipped past
 * expand counts as refused too.
 */
export function streamPods(
  cluster: LocalClusterInfo,
  group: string,
  { dryRun = false, parallel = 1, pauseMs, contents }: PodStreamOptions,
) {
  let running = true;
  let admitted = 0;
  let slowestMs = 0;
  const refused: string[] = [];
  const loop = (async () => {
    for (let round = 0; running; round++) {
      await Promise.all(
        Array.from({ length: parallel }, async (_, i) => {
          const name = `stream-${round}-${i}`;
          const sent = performance.now();
          const created = await createPod(cluster, gmsaPod(group, name, "gmsa-app"), { dryRun });
          slowestMs = Math.max(slowestMs, performance.now() - sent);
          const inlined = created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec;
          const right =
            inlined && (contents === undefined || JSON.stringify(parsed(inlined)) === JSON.stringify(contents));
          if (created.status === 201 && right) admitted++;
          else refused.push(`${name}: ${created.status} ${created.body.message ?? ""}`);
        }),
      );
      await sleep(pauseMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { admitted, refused, slowestMs };
    },
  };
}

/**
 * Runs `step` while dry-run pods stream ({@link streamPods}, `intervalMs` apart), and for 3 s after the step; prints the
 * counts and expects every create admitted, and at least one. A step that throws is rethrown once the stream has
 * stopped.
 */
export async function expectNoPodRefusedDuring(
  cluster: LocalClusterInfo,
  group: string,
  step: () => Promise<void>,
  intervalMs = 500,
): Promise<void> {
  const stream = streamPods(cluster, group, { dryRun: true, pauseMs: intervalMs });
  const settled = await step().then(
    () => sleep(3_000),
    (error: unknown) => error,
  );
  const { admitted, refused } = await stream.stop();
  console.log(`${expect.getState().currentTestName}: ${admitted} admitted, ${refused.length} refused`);
  if (settled instanceof Error) throw settled;
  expect(refused).toEqual([]);
  expect(admitted).toBeGreaterThan(0);
}
