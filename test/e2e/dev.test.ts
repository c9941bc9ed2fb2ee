/**
 * `npm run dev -- --check` (and `-- --worker --check`, `-- --in-cluster --check`, which runs doctor too) end to end,
 * as CI would run it: its own cluster and functions, the example pod created once, exit 0, and nothing left behind
 * (folders; for the node, the kubelet's iptables and ip6tables chains too). The shared cluster is not used.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nodeBinary } from "../../infra/build/tools/node-binary.ts";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";

const run = promisify(execFile);

/** The kubelet's and the CNI plugins' chains (KUBE-*, CNI-*) in every table of `family`, as "table chain". */
async function nodeChains(family: "iptables" | "ip6tables"): Promise<string[]> {
  const { stdout } = await run(`${family}-save`, []);
  let table = "";
  const chains: string[] = [];
  for (const line of stdout.split("\n")) {
    if (line.startsWith("*")) table = line.slice(1);
    const chain = /^:((?:KUBE|CNI)-\S+) /.exec(line)?.[1];
    if (chain !== undefined) chains.push(`${family} ${table} ${chain}`);
  }
  return chains;
}

const allNodeChains = async () => [...(await nodeChains("iptables")), ...(await nodeChains("ip6tables"))];

describe("npm run dev -- --check", () => {
  it.each([
    [[], "Node servers"],
    [["--worker"], "Worker builds in Miniflare (workerd)"],
  ])(
    "%j: the functions (the Worker builds with their own JWTs through the front proxy) inline the example pod's credspec, exit 0, the folder removed",
    async (args, functions) => {
      const { stdout } = await run(nodeBinary(), ["infra/local/dev.ts", ...args, "--check"], {
        cwd: REPO_ROOT,
        timeout: 110_000,
      });
      expect(stdout).toContain(`both webhooks called by the API server (${functions})`);
      // How to try it, printed for the Node servers (`npm run dev`'s default).
      if (args.length === 0) {
        expect(stdout).toMatch(
          /KUBECONFIG=\S+admin\.kubeconfig kubectl create -f infra\/deploy\/samples\/pod\.yaml -o jsonpath='\{\.spec\.securityContext\.windowsOptions\.gmsaCredentialSpec\}'/,
        );
        expect(stdout).toContain('"MachineAccountName":"webapp01"');
      }
      expect(stdout).toMatch(/check: pod gmsa-demo-\w+: gmsaCredentialSpec equals GMSACredentialSpec webapp01/);
      expect(stdout).toContain("check passed");
      const dir = /deletes (\S+)\.$/m.exec(stdout)?.[1];
      expect(dir).toBeDefined();
      expect(existsSync(dir!)).toBe(false);
    },
    120_000,
  );

  it("--in-cluster: the chart on a real node, two Ready replicas per function, inlines the example pod's credspec and removes the node, its iptables and ip6tables chains included", async () => {
    const before = new Set(await allNodeChains());
    // Sampled while the node runs: the kubelet adds chains in both families, which the node's stop must remove.
    const seen = new Set<string>();
    const sampler = setInterval(
      () =>
        void allNodeChains().then(
          (chains) => chains.forEach((chain) => seen.add(chain)),
          () => {},
        ),
      1_000,
    );
    const { stdout } = await run(nodeBinary(), ["infra/local/dev.ts", "--in-cluster", "--check"], {
      cwd: REPO_ROOT,
      timeout: 290_000,
    }).finally(() => clearInterval(sampler));
    const added = [...seen].filter((chain) => !before.has(chain));
    expect(
      added.some((chain) => chain.startsWith("iptables ")),
      added.join(", "),
    ).toBe(true);
    expect(
      added.some((chain) => chain.startsWith("ip6tables ")),
      added.join(", "),
    ).toBe(true);
    expect((await allNodeChains()).filter((chain) => !before.has(chain))).toEqual([]);
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
