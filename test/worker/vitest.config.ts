import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/worker/**/*.test.ts"],
    environment: "node",
    globalSetup: ["test/worker/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
