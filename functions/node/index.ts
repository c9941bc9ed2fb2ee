/**
 * `npm start`: the Node HTTP(S) server for both functions, built once from process.env. Serves until SIGTERM (graceful:
 * /readyz 503, SHUTDOWN_DELAY_SECONDS of serving, in-flight reviews finish) or SIGINT (no delay); exits 0 either way.
 */
import { ConfigurationError } from "../../shared/config/index.ts";
import { startNodeServer } from "./server.ts";

try {
  const running = await startNodeServer(process.env);
  const exit = () => process.exit(0);
  process.once("SIGTERM", () => void running.shutdown().finally(exit));
  process.once("SIGINT", () => void running.close().finally(exit));
} catch (error) {
  if (error instanceof ConfigurationError) {
    console.error(`gmsa-webhooks cannot start. ${error.message}`);
    process.exit(1);
  }
  throw error;
}
