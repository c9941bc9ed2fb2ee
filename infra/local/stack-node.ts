/**
 * One function as the Node server (`node functions/node/index.ts`), deployed the least-privilege
 * way: its own process, its own kubeconfig whose exec plugin mints tokens for its own service
 * account (`gmsa-expand` or `gmsa-authorize`), HTTPS with a certificate of the cluster CA, and
 * bearer caller authentication with the token the API server sends.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../build/repo-root.ts";
import { writeFunctionKubeconfig } from "./exec-plugin.ts";
import { functionServiceAccount } from "./function-tokens.ts";
import { nodeBinary } from "../build/tools/node-binary.ts";
import { freePort, startProcess } from "./processes.ts";
import { functionEnv, type FunctionLaunch, type StartedFunction } from "./stack-common.ts";

const NODE_ENTRY = fileURLToPath(new URL("../../functions/node/index.ts", import.meta.url));

/** Options only the Node runtime has. */
export interface NodeFunctionOptions {
  /** Advertised lifetime of the exec plugin's tokens, in seconds (see exec-plugin.ts). */
  lifetimeSeconds?: number;
  /** More environment for the exec plugin, through the kubeconfig's `exec.env`. */
  pluginEnv?: Record<string, string>;
  /** The script the server runs (a bundle of functions/node/index.ts, say); default that file. */
  entry?: string;
  /** Flags of `node` before the script; default none. */
  nodeArgs?: readonly string[];
}

/**
 * Writes the function's kubeconfig and starts its server on a free loopback port. Does not wait
 * for it: the caller polls `/healthz` (see stack.ts).
 */
export async function startNodeFunction(
  launch: FunctionLaunch,
  options: NodeFunctionOptions,
): Promise<StartedFunction> {
  const { cluster, fn, dir } = launch;
  const countFile = join(dir, `${fn}.exec-runs`);
  const kubeconfig = await writeFunctionKubeconfig(cluster, {
    serviceAccount: functionServiceAccount(fn),
    path: join(dir, `${fn}.kubeconfig`),
    countFile,
    ...(options.lifetimeSeconds === undefined ? {} : { lifetimeSeconds: options.lifetimeSeconds }),
    ...(options.pluginEnv === undefined ? {} : { env: options.pluginEnv }),
  });
  const port = await freePort();
  const env = functionEnv(launch, {
    FUNCTIONS: fn,
    PORT: String(port),
    // Local runs listen on loopback only.
    HOST: "127.0.0.1",
    TLS_CERT_FILE: launch.serving.certFile,
    TLS_KEY_FILE: launch.serving.keyFile,
    KUBECONFIG: kubeconfig,
  });
  const process = await startProcess(
    `${fn} (node)`,
    nodeBinary(),
    [...(options.nodeArgs ?? []), options.entry ?? NODE_ENTRY],
    launch.logFile,
    { env, cwd: REPO_ROOT },
  );
  return { fn, baseUrl: `https://127.0.0.1:${port}`, process, logFile: launch.logFile, countFile };
}
