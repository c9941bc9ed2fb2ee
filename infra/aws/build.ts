/**
 * `npm run build:lambda`: bundles functions/aws-lambda/index.ts to dist/aws-lambda/index.mjs (handler
 * `index.handler`, runtime nodejs24.x). infra/aws/README.md zips it with a kubeconfig.
 */
import { bundleNodeFunction } from "../node/bundle-function.ts";

const bytes = await bundleNodeFunction({ entry: "functions/aws-lambda/index.ts", outfile: "dist/aws-lambda/index.mjs" });
console.log(`dist/aws-lambda/index.mjs: ${(bytes / 1024).toFixed(1)} KiB (handler index.handler, runtime nodejs24.x)`);
