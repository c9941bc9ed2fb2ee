/**
 * `npm run dev -- --check` (and `-- --worker --check`, `-- --in-cluster --check`, which runs doctor too) end to end,
 * as CI would run it: its own cluster and functions, the example pod created once, exit 0, and nothing left behind. (The shared cluster is not
 * used.)
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nodeBinary } from "../../infra/local/node-binary.ts";
import { REPO_ROOT } from "../../infra/repo-root.ts";

const run = promisify(execFile);

describe("npm run dev -- --check", () => {
  it("starts everything, inlines the example pod's credspec, prints how to try it, exits 0 and removes its folder", async () => {
    const { stdout } = await run(nodeBinary(), ["infra/local/dev.ts", "--check"], { cwd: REPO_ROOT, timeout: 110_000 });
    expect(stdout).toContain("both webhooks called by the API server (Node servers)");
    expect(stdout).toMatch(
      /KUBECONFIG=\S+admin\.kubeconfig kubectl create -f infra\/samples\/pod\.yaml -o jsonpath='\{\.spec\.securityContext\.windowsOptions\.gmsaCredentialSpec\}'/,
    );
    expect(stdout).toMatch(/check: pod gmsa-demo-\w+: gmsaCredentialSpec equals GMSACredentialSpec webapp01/);
    expect(stdout).toContain('"MachineAccountName":"webapp01"');
    expect(stdout).toContain("check passed");
    const dir = /deletes (\S+)\.$/m.exec(stdout)?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir!)).toBe(false);
  }, 120_000);

  it("--worker: the Worker builds, authenticating with their own JWTs through the front proxy, inline the example pod's credspec", async () => {
    const { stdout } = await run(nodeBinary(), ["infra/local/dev.ts", "--worker", "--check"], {
      cwd: REPO_ROOT,
      timeout: 110_000,
    });
    expect(stdout).toContain("both webhooks called by the API server (Worker builds in Miniflare (workerd))");
    expect(stdout).toMatch(/check: pod gmsa-demo-\w+: gmsaCredentialSpec equals GMSACredentialSpec webapp01/);
    expect(stdout).toContain("check passed");
    const dir = /deletes (\S+)\.$/m.exec(stdout)?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir!)).toBe(false);
  }, 120_000);

  it("--in-cluster: the chart on a real node, two Ready replicas per function, inlines the example pod's credspec and removes the node", async () => {
    const { stdout } = await run(nodeBinary(), ["infra/local/dev.ts", "--in-cluster", "--check"], {
      cwd: REPO_ROOT,
      timeout: 290_000,
    });
    expect(stdout).toMatch(/local cluster with a node ready in [\d.]+ s; the chart runs both functions in the cluster/);
    expect(stdout).toContain("two replicas per function");
    // The real CLI's doctor on the chart's install: every check passes (the one Linux node is a warning).
    expect(stdout).toMatch(/^0 failed, \d+ warnings, \d+ passed, 0 skipped$/m);
    expect(stdout).toContain("doctor: exit 0");
    expect(stdout).toMatch(/check: pod gmsa-demo-\w+: gmsaCredentialSpec equals GMSACredentialSpec webapp01/);
    expect(stdout).toContain("check passed");
    const dirs = /deletes (\S+) and (\S+)\.$/m.exec(stdout);
    expect(dirs).not.toBeNull();
    expect(existsSync(dirs![1]!)).toBe(false);
    expect(existsSync(dirs![2]!)).toBe(false);
  }, 300_000);
});
