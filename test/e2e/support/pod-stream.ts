import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { LocalClusterInfo } from "../../../infra/local/index.ts";
import { gmsaPod } from "./install-checks.ts";
import { createPod } from "./pods.ts";

/**
 * Runs `step` while a pod of `gmsa-app` naming webapp01 is created (server-side dry run: the same admission, nothing
 * stored) every `intervalMs`, as a workload would during a change, and for 3 s after the step; prints the counts and
 * expects every create admitted, and at least one. A create counts as admitted only when it came back 201 with the
 * contents inlined, so a pod that slipped past expand counts as refused too. A step that throws is rethrown once
 * the stream has stopped.
 */
export async function expectNoPodRefusedDuring(
  cluster: LocalClusterInfo,
  group: string,
  step: () => Promise<void>,
  intervalMs = 500,
): Promise<void> {
  let admitted = 0;
  const refused: { status: number; message?: string }[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const started = Date.now();
      const created = await createPod(cluster, gmsaPod(group, `stream-${n}`, "gmsa-app"), { dryRun: true });
      if (created.status === 201 && created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec) admitted++;
      else refused.push({ status: created.status, message: created.body.message });
      await sleep(Math.max(0, intervalMs - (Date.now() - started)));
    }
  })();
  const settled = await step().then(
    () => sleep(3_000),
    (error: unknown) => error,
  );
  running = false;
  await loop;
  console.log(`${expect.getState().currentTestName}: ${admitted} admitted, ${refused.length} refused`);
  if (settled instanceof Error) throw settled;
  expect(refused).toEqual([]);
  expect(admitted).toBeGreaterThan(0);
}
