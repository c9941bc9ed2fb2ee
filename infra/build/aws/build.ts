/**
 * `npm run build:lambda`: bundles functions/aws-lambda/index.ts to dist/aws-lambda/index.mjs (handler
 * `index.handler`, runtime nodejs24.x) with its chunks (modes loaded only when configured) and source maps, and the
 * CLI beside it (`./gmsa-webhooks.mjs token eks`, the kubeconfig's exec plugin). infra/deploy/aws/README.md zips the folder
 * with a kubeconfig.
 */
import { bundleCli, buildNodeTarget, CLI_BUNDLE, describeBundle } from "../node/bundle-function.ts";

const OUT = "dist/aws-lambda";
const bundle = await buildNodeTarget("lambda", OUT);
const cli = await bundleCli(OUT);
console.log(
  `${OUT}/${describeBundle(bundle)} (handler index.handler, runtime nodejs24.x; NODE_OPTIONS=--enable-source-maps for stack traces in the .ts sources)`,
);
console.log(`${OUT}/${CLI_BUNDLE}: ${(cli.bytes / 1024).toFixed(1)} KiB (exec plugin: token eks)`);
