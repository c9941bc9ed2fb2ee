/**
 * `npm run build:lambda`: bundles functions/aws-lambda/index.ts to dist/aws-lambda/index.mjs (handler
 * `index.handler`, runtime nodejs24.x), and the CLI beside it (`./gmsa-webhooks.mjs token eks`, the kubeconfig's exec
 * plugin). infra/aws/README.md zips them with a kubeconfig.
 */
import { bundleCli, bundleNodeFunction, CLI_BUNDLE } from "../node/bundle-function.ts";

const bytes = await bundleNodeFunction({ entry: "functions/aws-lambda/index.ts", outfile: "dist/aws-lambda/index.mjs" });
const cliBytes = await bundleCli("dist/aws-lambda");
console.log(`dist/aws-lambda/index.mjs: ${(bytes / 1024).toFixed(1)} KiB (handler index.handler, runtime nodejs24.x)`);
console.log(`dist/aws-lambda/${CLI_BUNDLE}: ${(cliBytes / 1024).toFixed(1)} KiB (exec plugin: token eks)`);
