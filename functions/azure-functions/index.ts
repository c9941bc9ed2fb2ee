/**
 * The Azure Functions entry (`main` of the package `npm run build:azure` writes to dist/azure-functions/):
 * registers one anonymous HTTP function per route, all served by one app built once per worker process.
 */
import { app } from "@azure/functions";
import { AZURE_METHODS, AZURE_ROUTES, createAzureHandler } from "./handler.ts";

const handler = createAzureHandler(process.env);

for (const [name, route] of Object.entries(AZURE_ROUTES)) {
  app.http(name, { route, methods: AZURE_METHODS, authLevel: "anonymous", handler });
}
