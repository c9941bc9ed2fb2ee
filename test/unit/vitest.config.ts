import { defineConfig } from "vitest/config";

/** Pure code and in-process or loopback servers of our own; nothing to prepare (test/tiers.ts). */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/unit/**/*.test.ts"],
    environment: "node",
    setupFiles: ["test/unit/no-child-processes.ts"],
    testTimeout: 20_000,
  },
});
