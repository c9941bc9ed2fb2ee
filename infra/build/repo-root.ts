import path from "node:path";

/**
 * The repository's root folder (this file is infra/build/repo-root.ts): where wrangler, esbuild and our scripts run,
 * and what repository-relative paths are taken from.
 */
export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");
