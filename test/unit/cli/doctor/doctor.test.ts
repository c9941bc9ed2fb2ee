import { describe, expect, it } from "vitest";
import type { ClusterAnswer, ClusterRequest } from "../../../../cli/cluster.ts";
import { runDoctor, runDoctorCommand } from "../../../../cli/doctor/doctor.ts";
import { EXIT_OK, EXIT_USAGE } from "../../../../cli/io.ts";
import { fakeIo } from "../../../support/fake-io.ts";
import { buildPod } from "../../../support/pods.ts";

/**
 * An API server with the CRD, no node, no webhook configuration, no binding: every list empty, every access review
 * allowed; `answer` may answer a request first.
 */
function emptyCluster(requests: ClusterRequest[], answer: (request: ClusterRequest) => unknown = () => undefined) {
  return {
    request(request: ClusterRequest): Promise<ClusterAnswer> {
      requests.push(request);
      const given = answer(request);
      if (given !== undefined) return answered(request.method === "POST" ? 201 : 200, given);
      if (request.path.includes("/customresourcedefinitions/"))
        return answered(200, {
          spec: { versions: ["v1", "v1alpha1"].map((name) => ({ name, served: true })) },
          status: { conditions: [{ type: "Established", status: "True" }] },
        });
      if (request.method === "POST" && request.path.endsWith("subjectaccessreviews"))
        return answered(201, { status: { allowed: true } });
      if (request.path.startsWith("/api/v1/namespaces/gmsa-webhooks/serviceaccounts/")) return answered(404, {});
      return answered(200, { items: [] });
    },
  };
}

const answered = (status: number, body: unknown): Promise<ClusterAnswer> =>
  Promise.resolve({ status, body, warnings: [] });

describe("runDoctor", () => {
  it("fails both unregistered webhooks, skips what it cannot know, and sends no write", async () => {
    const requests: ClusterRequest[] = [];
    const findings = await runDoctor(emptyCluster(requests));
    expect(findings.filter((f) => f.status === "fail").map((f) => f.check)).toEqual([
      "webhooks/expand",
      "webhooks/authorize",
    ]);
    expect(findings.filter((f) => f.status === "skip").map((f) => f.check)).toEqual([
      "rbac/expand",
      "rbac/authorize",
      "end-to-end/may-use",
      "end-to-end",
    ]);
    // Reads, access reviews and dry runs only.
    expect(
      requests.filter((r) => r.method === "POST" && !r.path.endsWith("accessreviews") && r.query?.["dryRun"] !== "All"),
    ).toEqual([]);
  });

  it("reports a failing probe after an earlier failure as a skip that says so: each fault is named once", async () => {
    const credspec = { metadata: { name: "w1" }, credspec: { CmsPlugins: [] } };
    const binding = { metadata: { namespace: "web" }, subjects: [{ kind: "ServiceAccount", name: "app" }] };
    const cluster = emptyCluster([], ({ path }) => {
      if (path === "/apis/windows.k8s.io/v1/gmsacredentialspecs") return { items: [credspec] };
      if (path === "/apis/rbac.authorization.k8s.io/v1/rolebindings") return { items: [binding] };
      // Admitted without contents: expand did not run (no webhook is registered).
      if (path === "/api/v1/namespaces/web/pods") return { spec: {} };
      return undefined;
    });
    const findings = await runDoctor(cluster);
    expect([...new Set(findings.filter((f) => f.status === "fail").map((f) => f.check))]).toEqual([
      "credspec/w1",
      "webhooks/expand",
      "webhooks/authorize",
    ]);
    const probe = findings.find((f) => f.check === "end-to-end/may-use");
    expect(probe?.status).toBe("skip");
    expect(probe?.message).toBe(
      "a dry-run pod of service account web/app naming w1 was admitted without the contents inlined: expand did not run (follows from the failures above)",
    );
  });

  it("reports a function's failing /readyz as a skip when its RBAC is missing, which names the fault once", async () => {
    const hook = (fn: string) => ({
      metadata: { name: `gmsa-webhooks-${fn}` },
      webhooks: [
        { name: `${fn}.gmsa-webhooks.windows.k8s.io`, clientConfig: { service: { namespace: "g", name: fn } } },
      ],
    });
    const base = emptyCluster([], ({ method, path, body }) => {
      if (path.endsWith("/mutatingwebhookconfigurations")) return { items: [hook("expand")] };
      if (path.endsWith("/validatingwebhookconfigurations")) return { items: [hook("authorize")] };
      if (method === "POST" && path.endsWith("/subjectaccessreviews") && JSON.stringify(body).includes("authorize"))
        return { status: { allowed: false } };
      return undefined;
    });
    // authorize's /readyz asks the API server, which refuses it: 503.
    const cluster = {
      request: (request: ClusterRequest) =>
        request.path.includes("https:authorize:") ? answered(503, "not ready: RBAC") : base.request(request),
    };
    const findings = await runDoctor(cluster, {
      identities: { expand: "e", authorize: "system:serviceaccount:g:authorize" },
    });
    expect(findings.find((f) => f.check === "rbac/authorize")?.status).toBe("fail");
    const readyz = findings.find((f) => f.check === "readyz/authorize");
    expect(readyz?.status).toBe("skip");
    expect(readyz?.message).toMatch(/\(follows from rbac\/authorize below\)$/);
  });

  it("reports access reviews the API server refuses doctor as failures of their checks, and runs the rest", async () => {
    const credspec = { metadata: { name: "w1" }, credspec: { CmsPlugins: [] } };
    const binding = { metadata: { namespace: "web" }, subjects: [{ kind: "ServiceAccount", name: "app" }] };
    const pod = buildPod({
      namespace: "web",
      serviceAccountName: "app",
      windowsOptions: { gmsaCredentialSpecName: "w1" },
    });
    const base = emptyCluster([], ({ path }) => {
      if (path === "/apis/windows.k8s.io/v1/gmsacredentialspecs") return { items: [credspec] };
      if (path === "/apis/rbac.authorization.k8s.io/v1/rolebindings") return { items: [binding] };
      if (path === "/api/v1/pods") return { items: [pod] };
      return undefined;
    });
    const refused = {
      kind: "Status",
      reason: "Forbidden",
      message: 'user "ci" cannot create localsubjectaccessreviews',
    };
    const cluster = {
      request: (request: ClusterRequest) =>
        request.method === "POST" && request.path.endsWith("/localsubjectaccessreviews")
          ? answered(403, refused)
          : base.request(request),
    };
    const findings = await runDoctor(cluster);
    // end-to-end's failure comes after others, so it is a skip that says so (each fault named once).
    for (const [check, status] of [
      ["pods/use", "fail"],
      ["end-to-end", "skip"],
    ]) {
      const failed = findings.find((f) => f.check === check);
      expect(failed?.status, check).toBe(status);
      expect(failed?.message).toMatch(/^could not be checked: .*403 Forbidden: user "ci" cannot create/);
      expect(failed?.message).not.toContain("this function's RBAC");
      expect(failed?.fix).toMatch(/read-only role in docs\/doctor\.md/);
    }
    expect(findings.map((f) => f.check)).toContain("webhooks/authorize");
  });

  it("checks the identities named with flags instead of looking for ServiceAccounts", async () => {
    const requests: ClusterRequest[] = [];
    const findings = await runDoctor(emptyCluster(requests), {
      identities: { expand: "worker-expand", authorize: "system:serviceaccount:fn:authorize" },
    });
    expect(findings.filter((f) => f.check.startsWith("rbac/")).map((f) => f.message)).toEqual([
      "expand's identity worker-expand may get gmsacredentialspecs",
      "authorize's identity system:serviceaccount:fn:authorize may get gmsacredentialspecs and create localsubjectaccessreviews",
    ]);
    expect(requests.some((r) => r.path.includes("serviceaccounts/gmsa-"))).toBe(false);
  });
});

describe("kubectl gmsa doctor's command line", () => {
  it("prints its usage with --help, naming the program as invoked (exit 0)", async () => {
    const io = fakeIo({ program: "kubectl gmsa" });
    expect(await runDoctorCommand(["--help"], io)).toBe(EXIT_OK);
    expect(io.out).toMatch(/^Usage: kubectl gmsa doctor \[options\]/);
    expect(io.out).toMatch(/--service-account <ns:name>/);
  });

  it.each([
    [["--service-account", "web"], /--service-account "web" is not <namespace>:<name>/],
    [["--credspec", "Not_A_Name"], /--credspec "Not_A_Name" is not a DNS-1123 subdomain/],
    [["--expand-identity", ""], /--expand-identity must not be empty/],
    [["extra"], /unexpected argument "extra"/],
    [["-o", "table"], /-o\/--output must be json or yaml/],
  ])("refuses %j before connecting (exit 2)", async (argv, message) => {
    const io = fakeIo();
    expect(await runDoctorCommand(argv, io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(message);
    expect(io.err).toMatch(/Run 'gmsa-webhooks doctor --help' for usage/);
  });
});
