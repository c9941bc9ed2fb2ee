import { describe, expect, it } from "vitest";
import {
  cniConfList,
  containerdConfig,
  kubeletConfig,
  kubeletFlags,
  NODE_IP,
  nodePaths,
} from "../../../infra/local/node-config.ts";

const paths = nodePaths("/node");
const files = { caFile: "/ca.crt", servingCertFile: "/kubelet.crt", servingKeyFile: "/kubelet.key" };

describe("the local node's configuration", () => {
  it("runs the kubelet on cgroup v1 with the cgroupfs driver, as containerd's runc (Debian's) does; failCgroupV1 from 1.31 on", () => {
    expect(kubeletConfig(paths, files, "v1.37.2")).toMatchObject({ failCgroupV1: false, cgroupDriver: "cgroupfs" });
    const config = containerdConfig(paths, "/cni", "/usr/sbin/runc");
    expect(config).toMatch(/SystemdCgroup = false/);
    // 1.30's kubelet would not read the field.
    expect(kubeletConfig(paths, files, "v1.30.14")).not.toHaveProperty("failCgroupV1");
    expect(kubeletConfig(paths, files, "v1.30.14")).toMatchObject({ cgroupDriver: "cgroupfs" });
    expect(kubeletConfig(paths, files, "v1.31.0")).toMatchObject({ failCgroupV1: false });
    // containerd may not lower oom_score_adj: no CAP_SYS_RESOURCE here.
    expect(config).toMatch(/^\s*restrict_oom_score_adj = true$/m);
    expect(config).toMatch(/BinaryName = "\/usr\/sbin\/runc"/);
  });

  it("serves the kubelet on the node's non-loopback address, with its certificate, and no anonymous access", () => {
    expect(NODE_IP).not.toMatch(/^127\./);
    expect(kubeletConfig(paths, files, "v1.37.2")).toMatchObject({
      address: NODE_IP,
      tlsCertFile: "/kubelet.crt",
      authentication: { anonymous: { enabled: false } },
    });
    expect(kubeletFlags(paths, "/kubeconfig")).toContain(`--node-ip=${NODE_IP}`);
  });

  it("keeps every path the kubelet and containerd write under the node's folder", () => {
    const config =
      JSON.stringify([kubeletConfig(paths, files, "v1.37.2"), cniConfList(paths)]) +
      containerdConfig(paths, "/cni", "/runc");
    for (const path of config.match(/"\/[^"]*"/g) ?? []) {
      expect(path).toMatch(/^"\/(node|cni|runc|ca\.crt|kubelet\.(crt|key)|etc\/resolv\.conf)/);
    }
  });
});
