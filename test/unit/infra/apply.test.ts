/**
 * infra/local/apply.ts names the manifests the local cluster applies by path under infra/deploy/: each must be there,
 * or `npm run dev` and the e2e tier fail at start-up.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import { BASE_MANIFESTS, WEBHOOK_MANIFESTS } from "../../../infra/local/apply.ts";

describe("the manifests the local cluster applies", () => {
  it.each([...BASE_MANIFESTS, ...WEBHOOK_MANIFESTS])("%s exists (a path under infra/deploy/)", (manifest) => {
    expect(existsSync(path.join(REPO_ROOT, "infra", "deploy", manifest))).toBe(true);
  });
});
