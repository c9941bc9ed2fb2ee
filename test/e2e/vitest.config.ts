import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * End-to-end tests against a real kube-apiserver + etcd started once by global-setup.ts
 * (first run builds both from source: minutes; later runs start in seconds).
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/e2e/**/*.test.ts"],
    globalSetup: ["test/e2e/global-setup.ts"],
    // Real child processes and servers: forks isolate them better than threads.
    pool: "forks",
    // Files share one cluster (and its cluster-scoped webhook configurations), and the machine
    // has 2 cores that etcd and kube-apiserver already use: one file at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
