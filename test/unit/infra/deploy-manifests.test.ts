/**
 * The deploy targets' example files stay consistent with the rest of infra/ and with what the functions accept:
 * RBAC bindings name the ClusterRoles of infra/rbac/, the in-cluster Deployments use its service accounts and the
 * image's user, and the example kubeconfigs parse into the exec plugin the README describes, with no secret in them.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { parseKubeconfig } from "../../../shared/kube/kubeconfig.ts";
import { selectKubeTarget } from "../../../shared/kube/kube-target.ts";

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string }[];
  spec?: {
    template?: {
      spec: {
        serviceAccountName: string;
        nodeSelector?: Record<string, string>;
        securityContext: { runAsNonRoot: boolean; runAsUser: number };
        containers: { env: { name: string; value?: string }[]; securityContext: Record<string, unknown> }[];
      };
    };
  };
}

async function manifests(file: string): Promise<Manifest[]> {
  const text = await readFile(new URL(`../../../${file}`, import.meta.url), "utf8");
  return parseAllDocuments(text).map((doc) => doc.toJS() as Manifest);
}

async function rbacNames(): Promise<{ clusterRoles: string[]; serviceAccounts: string[] }> {
  const all = [...(await manifests("infra/rbac/expand.yaml")), ...(await manifests("infra/rbac/authorize.yaml"))];
  return {
    clusterRoles: all.filter((m) => m.kind === "ClusterRole").map((m) => m.metadata.name),
    serviceAccounts: all.filter((m) => m.kind === "ServiceAccount").map((m) => `${m.metadata.namespace}/${m.metadata.name}`),
  };
}

describe.each(["infra/aws/rbac.yaml", "infra/azure/rbac.yaml"])("%s", (file) => {
  it("binds one User to each function's ClusterRole from infra/rbac, and nothing else", async () => {
    const { clusterRoles } = await rbacNames();
    const bindings = await manifests(file);
    expect(bindings.map((b) => b.kind)).toEqual(["ClusterRoleBinding", "ClusterRoleBinding"]);
    expect(bindings.map((b) => b.roleRef?.name).sort()).toEqual([...clusterRoles].sort());
    for (const binding of bindings) expect(binding.subjects?.map((s) => s.kind)).toEqual(["User"]);
  });
});

describe("infra/node/in-cluster.yaml", () => {
  it("runs one Deployment per function with that function's service account, non-root as the image's user, on Linux", async () => {
    const { serviceAccounts } = await rbacNames();
    const deployments = (await manifests("infra/node/in-cluster.yaml")).filter((m) => m.kind === "Deployment");
    expect(deployments.map((d) => d.metadata.name)).toEqual(["gmsa-expand", "gmsa-authorize"]);
    for (const deployment of deployments) {
      const pod = deployment.spec!.template!.spec;
      expect(serviceAccounts).toContain(`${deployment.metadata.namespace}/${pod.serviceAccountName}`);
      expect(pod.serviceAccountName).toBe(deployment.metadata.name);
      expect(pod.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      const [container] = pod.containers;
      const env = Object.fromEntries(container!.env.map((e) => [e.name, e.value]));
      expect(env["FUNCTIONS"]).toBe(deployment.metadata.name.replace("gmsa-", ""));
      expect(env).not.toHaveProperty("KUBECONFIG");
      expect(container!.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    }
  });
});

describe.each([
  { file: "infra/aws/kubeconfig.example.yaml", command: "aws", args: ["eks", "get-token"] },
  { file: "infra/azure/kubeconfig.example.yaml", command: "/srv/app/bin/kubelogin", args: ["get-token", "--login", "msi"] },
])("$file", ({ file, command, args }) => {
  it("parses into an exec plugin the functions accept, with no static credential", async () => {
    const text = await readFile(new URL(`../../../${file}`, import.meta.url), "utf8");
    const parsed = parseKubeconfig(text, { source: file, resolvePath: (entry) => new URL(entry, "file:///srv/app/").pathname });
    expect(parsed.problems).toEqual([]);
    const { target, problems } = selectKubeTarget(parsed.config!);
    expect(problems).toEqual([]);
    expect(target?.auth.kind).toBe("exec");
    if (target?.auth.kind !== "exec") return;
    expect(target.auth.exec).toMatchObject({ command, interactiveMode: "Never" });
    expect(target.auth.exec.args.join(" ")).toContain(args.join(" "));
    expect(text).not.toMatch(/^\s*(token|tokenFile|client-key-data|password):/m);
  });
});
