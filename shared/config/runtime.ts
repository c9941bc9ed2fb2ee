/** Where the functions run. */
export type Runtime = "node" | "workers" | "lambda" | "azure";

/** The runtimes' names, for messages. */
export const RUNTIME_NAMES: Record<Runtime, string> = {
  node: "the Node server",
  workers: "Cloudflare Workers",
  lambda: "AWS Lambda",
  azure: "Azure Functions",
};

/** Every runtime. */
export const RUNTIMES = Object.keys(RUNTIME_NAMES) as Runtime[];
