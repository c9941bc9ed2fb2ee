/**
 * Both functions as production runs them, for the defence tests under attack: the esbuild bundle of the Node server
 * with `npm start`'s V8 flags on the command line, registered as the cluster's webhooks.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  applyBaseInfra,
  deleteWebhooks,
  type FunctionsStack,
  type LocalClusterInfo,
} from "../../../infra/local/index.ts";
import { buildNodeTarget } from "../../../infra/build/node/bundle-function.ts";
import { NODE_SERVER_OPTIONS } from "../../../infra/build/node/heap-limits.ts";
import { deletePods, readCredSpec, startRegisteredFunctions } from "./pods.ts";

export interface BundledFunctions {
  stack: FunctionsStack;
  /** The contents of credspec webapp01, which every pod the tests create must carry. */
  webapp01: unknown;
  /** Deletes the webhooks and the pods of `group`, stops both servers and removes the bundle. */
  stop(): Promise<void>;
}

/** Builds the bundle, starts both servers from it and registers them; `group` names the pods `stop` deletes. */
export async function startBundledFunctions(cluster: LocalClusterInfo, group: string): Promise<BundledFunctions> {
  await applyBaseInfra(cluster);
  const webapp01 = await readCredSpec(cluster, "webapp01");
  const bundleDir = await mkdtemp(join(cluster.dir, `gmsa-${group}-bundle-`));
  const entry = join(bundleDir, (await buildNodeTarget("server", bundleDir)).entry);
  const stack = await startRegisteredFunctions(cluster, { nodeEntry: entry, nodeArgs: NODE_SERVER_OPTIONS.split(" ") });
  return {
    stack,
    webapp01,
    async stop() {
      await deleteWebhooks(cluster);
      await deletePods(cluster, group);
      await stack.stop();
      await rm(bundleDir, { recursive: true, force: true });
    },
  };
}
