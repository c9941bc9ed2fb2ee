/**
 * Workers, Lambda and Azure have no start-up to refuse the way `npm start` exits: a configuration problem is logged
 * in full, once per isolate or instance (the app is built once), and every request answers 503 until the
 * configuration is fixed. The API server treats the 503 as a failed call and applies the webhook's failurePolicy.
 */
import { Hono } from "hono";
import { ConfigurationError } from "../shared/config/index.ts";
import type { AppEnv } from "../shared/http/env.ts";

/** The body of every answer while the configuration is broken; it names no setting and no secret. */
export const MISCONFIGURED_BODY = { error: "gmsa-webhooks is misconfigured; see the function's logs" } as const;

/**
 * What a platform serves when building its app threw `error`: a {@link ConfigurationError} is reported through
 * `report` (default console.error, the platform's log) and gives an app that answers 503 to every request; anything else is rethrown.
 */
export function misconfiguredApp(error: unknown, report: (message: string) => void = console.error): Hono<AppEnv> {
  if (!(error instanceof ConfigurationError)) throw error;
  report(`gmsa-webhooks is misconfigured. ${error.message}`);
  const app = new Hono<AppEnv>();
  app.all("*", (c) => c.json(MISCONFIGURED_BODY, 503));
  return app;
}
