/** The Worker entry (wrangler.toml `main`): bindings -> config -> kube client -> createApp, once per isolate. */
import type { Hono } from "hono";
import { readConfig, type Bindings } from "../../shared/config/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { createReadinessCheck } from "../../shared/kube/readiness.ts";
import { createJsonLogger } from "../../shared/log.ts";
import { configuredDeps, createApp, misconfiguredApp } from "../app.ts";
import { createJsonMetrics } from "../metrics.ts";
import { createWorkerGmsaClient } from "./gmsa-client.ts";

let app: Hono<AppEnv> | undefined;

/** Synchronous, nothing shared in flight: a request must not await a promise another request made (workerd). */
function build(env: Bindings): Hono<AppEnv> {
  try {
    const config = readConfig(env, "workers");
    const logger = createJsonLogger({ level: config.logLevel, write: (line) => console.log(line) });
    const gmsa = createWorkerGmsaClient(config.kube);
    for (const warning of gmsa.warnings) logger.log("warn", warning);
    const readiness = createReadinessCheck({
      request: gmsa.client.request,
      functions: config.functions,
      shareInFlight: false,
    });
    return createApp(
      configuredDeps(config, {
        gmsa: gmsa.client,
        logger,
        readiness,
        metrics: createJsonMetrics(() => gmsa.client.stats()),
      }),
    );
  } catch (error) {
    // Logged here, once per isolate; every request then answers 503 until the configuration is fixed.
    return misconfiguredApp(error);
  }
}

export default {
  fetch(request, env, ctx) {
    // Only string vars and secrets are read; other bindings are ignored.
    app ??= build(
      Object.fromEntries(
        Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      ),
    );
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Record<string, unknown>>;
