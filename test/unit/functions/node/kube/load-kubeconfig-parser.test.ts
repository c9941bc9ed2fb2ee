/**
 * The YAML parser stays out of memory unless a kubeconfig needs it: JSON and plain block YAML are read without it
 * (shared/kubeconfig/block-yaml.ts), anything else loads it.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadNodeKubeTarget } from "../../../../../functions/node/kube/load-kubeconfig.ts";
import { parseKubeSettings } from "../../../../../shared/config/index.ts";
import { tempDir } from "../../../../support/temp-dir.ts";

const parserLoaded = vi.hoisted(() => vi.fn());
vi.mock("../../../../../shared/kubeconfig/kubeconfig.ts", async (original) => {
  parserLoaded();
  return await original();
});

const BLOCK = "current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://k\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\n";

async function load(text: string) {
  const file = path.join(await tempDir("gmsa-kubeconfig-"), "config");
  await writeFile(file, text);
  return loadNodeKubeTarget(parseKubeSettings({ KUBECONFIG: file }).settings, { homeDir: path.dirname(file) });
}

describe("loadNodeKubeTarget and the YAML parser", () => {
  it("reads a block YAML kubeconfig without loading the parser, then loads it for flow style", async () => {
    expect((await load(BLOCK)).target.cluster.server).toBe("https://k");
    expect(parserLoaded).not.toHaveBeenCalled();
    const flow = "current-context: x\nclusters: [{name: c, cluster: {server: 'https://flow'}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: t}}]\n";
    expect((await load(flow)).target.cluster.server).toBe("https://flow");
    expect(parserLoaded).toHaveBeenCalledOnce();
  });
});
