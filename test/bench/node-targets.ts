/** Section G's Node processes, started fresh for their idle memory: our production bundle, and the floor webhook. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFunctions, type LocalClusterInfo } from "../../infra/local/index.ts";
import { startMinimalWebhook } from "./minimal-webhook.ts";
import { buildNodeTarget } from "../../infra/build/node/bundle-function.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { serverTargets, stackTargets, type MeasuredTarget } from "./measured-target.ts";
import { reviewUrl } from "./reviews.ts";
import { NODE_SERVER_OPTIONS } from "../../infra/build/node/heap-limits.ts";

/** The server names in section G's tables. */
export const NODE_SERVER_NAME = "gmsa-webhooks node";
export const FLOOR_SERVER_NAME = "do-nothing Node HTTPS webhook";

/** Bundles the Node entry and starts both functions; `stop()` stops them and removes the bundle. */
export async function startNodeTargets(
  cluster: LocalClusterInfo,
): Promise<{ targets: MeasuredTarget[]; stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "gmsa-bench-node-"));
  try {
    // The production bundle, as `npm start` and the image run it.
    const entry = join(dir, (await buildNodeTarget("server", dir)).entry);
    const stack = await startFunctions(cluster, {
      runtime: "node",
      nodeEntry: entry,
      // On the command line, as `npm start` and the image run it: V8 flags are refused in NODE_OPTIONS.
      nodeArgs: NODE_SERVER_OPTIONS.split(" "),
    });
    const targets = await stackTargets(stack, NODE_SERVER_NAME, cluster.caPem);
    return {
      targets,
      stop: async () => {
        await stack.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts the do-nothing webhook (one process answering both paths: allowed, expand with a fixed patch). */
export async function startFloorTargets(
  cluster: LocalClusterInfo,
  credspec: unknown,
): Promise<{ targets: MeasuredTarget[]; stop: () => Promise<void> }> {
  const minimal = await startMinimalWebhook(cluster, credspec);
  const url = (fn: FunctionName) => reviewUrl(minimal, fn);
  return { targets: serverTargets(FLOOR_SERVER_NAME, cluster.caPem, () => minimal.pid, url), stop: minimal.stop };
}
