/**
 * The Worker entry (wrangler.toml `main`): bindings -> config -> kube client -> app, once per isolate.
 * Each wrangler environment serves one function (FUNCTIONS), with its own secrets and identity.
 */
import type { Hono } from "hono";
import type { Bindings } from "../../shared/config.ts";
import { ConfigurationError } from "../../shared/configuration-error.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { createWorkerGmsaClient } from "../../shared/kube/create-worker-gmsa-client.ts";
import { assembleApp, createLogger, flattenCounters, readSettings } from "../assemble.ts";

type Built = { ok: true; app: Hono<AppEnv> } | { ok: false; problems: readonly string[] };
let built: Built | undefined;

function build(env: Bindings): Built {
  try {
    const { config, kube } = readSettings(env, "workers");
    const logger = createLogger(config, (line) => console.log(line));
    const gmsa = createWorkerGmsaClient(kube);
    for (const warning of gmsa.warnings) logger.log("warn", warning);
    return { ok: true, app: assembleApp(config, { gmsa: gmsa.client, logger, kubeMetrics: () => flattenCounters(gmsa.client.stats()) }) };
  } catch (error) {
    if (error instanceof ConfigurationError) return { ok: false, problems: error.problems };
    throw error;
  }
}

/** Only string vars and secrets are read; other bindings are ignored. */
function stringBindings(env: Record<string, unknown>): Bindings {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

export default {
  fetch(request, env, ctx) {
    built ??= build(stringBindings(env));
    if (!built.ok) {
      // Workers have no start-up to refuse: every request fails (503) until the configuration is fixed.
      console.error(`gmsa-webhooks is misconfigured:\n- ${built.problems.join("\n- ")}`);
      return Response.json({ error: "gmsa-webhooks is misconfigured; see the Worker's logs" }, { status: 503 });
    }
    return built.app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Record<string, unknown>>;
