import { defineConfig } from "vitest/config";

/**
 * Tests that run programs (openssl, esbuild, wrangler, exec plugins, the CLI, Helm, actionlint, Debian's awscli and
 * Prometheus parser, the image); global-setup.ts prepares what the selected files need before any test's clock.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/tools/**/*.test.ts"],
    environment: "node",
    globalSetup: ["test/tools/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
