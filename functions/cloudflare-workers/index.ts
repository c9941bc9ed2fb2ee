/** The Worker entry (wrangler.toml `main`): bindings -> config -> kube client -> buildApp, once per isolate. */
import type { Hono } from "hono";
import { readConfig, type Bindings } from "../../shared/config/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { buildApp, misconfiguredApp } from "../app.ts";
import { createJsonMetrics } from "../metrics.ts";
import { createWorkerGmsaClient } from "./gmsa-client.ts";

let app: Hono<AppEnv> | undefined;

/** Synchronous, nothing shared in flight: a request must not await a promise another request made (workerd). */
function build(env: Bindings): Hono<AppEnv> {
  try {
    const config = readConfig(env, "workers");
    const gmsa = createWorkerGmsaClient(config.kube);
    return buildApp(config, {
      gmsa: gmsa.client,
      warnings: gmsa.warnings,
      kube: { request: gmsa.client.request, shareInFlight: false },
      write: (line) => console.log(line),
      metrics: createJsonMetrics(() => gmsa.client.stats()),
    }).app;
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
