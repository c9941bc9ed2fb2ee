/**
 * The Lambda entry (`index.handler` in the bundle `npm run build:lambda` writes to dist/aws-lambda/index.mjs):
 * process.env -> config -> kube client -> app, once per execution environment.
 */
import { createLambdaHandler } from "./handler.ts";

export const handler = createLambdaHandler(process.env);
