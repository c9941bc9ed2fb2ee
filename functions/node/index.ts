/**
 * `npm start`: the Node HTTP(S) server for both functions (containers, VMs, in-cluster, local dev).
 * Reads process.env once, builds everything once, serves until SIGTERM/SIGINT.
 */
import { ConfigurationError } from "../../shared/config/index.ts";
import { startNodeServer } from "./server.ts";

try {
  const running = await startNodeServer(process.env);
  const stop = () => void running.close().finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
} catch (error) {
  if (error instanceof ConfigurationError) {
    console.error(`gmsa-webhooks cannot start. ${error.message}`);
    process.exit(1);
  }
  throw error;
}
