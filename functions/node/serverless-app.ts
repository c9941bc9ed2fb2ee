/**
 * The app for function platforms (AWS Lambda, Azure Functions), built once per instance. These platforms have no
 * start-up to refuse the way `npm start` exits: a configuration problem is logged in full, once per instance, and
 * every request answers 503 until the configuration is fixed, as the Worker does. The API server treats the 503 as a
 * failed call and applies the webhook's failurePolicy.
 */
import { Hono } from "hono";
import type { Bindings } from "../../shared/config.ts";
import { ConfigurationError } from "../../shared/configuration-error.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { buildNodeApp, type BuildNodeAppOptions } from "./build-app.ts";

/** Options of {@link prepareServerlessApp}. */
export interface ServerlessAppOptions extends Omit<BuildNodeAppOptions, "readClientCertificate"> {
  /** Where the list of configuration problems goes. Default: console.error (the platform's log). */
  error?: (message: string) => void;
}

/** The body of every answer while the configuration is broken; it names no setting and no secret. */
export const MISCONFIGURED_BODY = { error: "gmsa-webhooks is misconfigured; see the function's logs" } as const;

/** An app that answers 503 to every request. */
export function createMisconfiguredApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.all("*", (c) => c.json(MISCONFIGURED_BODY, 503));
  return app;
}

const PLATFORM_MTLS =
  "CALLER_AUTH=mtls needs the Node server (npm start, infra/node): on a function platform TLS ends at the platform's " +
  "front end, so the function never sees the caller's certificate; choose bearer, jwt or path";

/** Settings that cannot work on a function platform, whatever else is set. */
function platformProblems(env: Bindings): string[] {
  return env["CALLER_AUTH"]?.trim() === "mtls" ? [PLATFORM_MTLS] : [];
}

/**
 * Builds the app from `env` ({@link buildNodeApp}). Resolves to a 503-only app, after logging every problem,
 * when the configuration is unusable.
 * @throws (rejects with) anything that is not a configuration problem.
 */
export async function prepareServerlessApp(env: Bindings, options: ServerlessAppOptions = {}): Promise<Hono<AppEnv>> {
  const platform = platformProblems(env);
  try {
    if (platform.length > 0) throw new ConfigurationError(platform);
    return (await buildNodeApp(env, options)).app;
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    (options.error ?? console.error)(`gmsa-webhooks is misconfigured. ${error.message}`);
    return createMisconfiguredApp();
  }
}
