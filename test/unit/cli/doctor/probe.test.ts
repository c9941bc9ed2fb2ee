import { describe, expect, it } from "vitest";
import type { ClusterRequest, ClusterAnswer } from "../../../../cli/cluster.ts";
import { explainWebhookCallError, findProbeSubjects, runProbes } from "../../../../cli/doctor/probe.ts";
import type { FoundWebhook } from "../../../../cli/doctor/webhooks.ts";

const found: FoundWebhook[] = [
  {
    fn: "expand",
    configName: "gmsa-webhooks-expand",
    webhook: { name: "expand.gmsa-webhooks.windows.k8s.io", clientConfig: { service: { namespace: "g", name: "e" } } },
  },
  {
    fn: "authorize",
    configName: "gmsa-webhooks-authorize",
    webhook: { name: "authorize.gmsa-webhooks.windows.k8s.io", clientConfig: { url: "https://a.example/authorize" } },
  },
];
const callError = (hook: string, tail: string) =>
  `Internal error occurred: failed calling webhook "${hook}.gmsa-webhooks.windows.k8s.io": failed to call webhook: Post "https://e.g.svc:443/${hook}?timeout=10s": ${tail}`;

describe("the API server's webhook call errors, named", () => {
  it.each([
    [
      "a caBundle of another CA",
      callError("expand", "tls: failed to verify certificate: x509: certificate signed by unknown authority"),
      /the caBundle of gmsa-webhooks-expand does not verify the certificate the Service of expand serves/,
    ],
    [
      "an expired certificate",
      callError(
        "expand",
        "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time",
      ),
      /has expired/,
    ],
    [
      "a name mismatch",
      callError(
        "authorize",
        "tls: failed to verify certificate: x509: certificate is valid for other.example, not a.example",
      ),
      /its URL of authorize serves does not name the host/,
    ],
    [
      "an unreachable function",
      callError("authorize", "dial tcp 10.0.0.1:443: connect: connection refused"),
      /the API server could not call authorize \(gmsa-webhooks-authorize\): failed calling webhook .*connection refused/,
    ],
    [
      "a function without a working credential",
      'admission webhook "expand.gmsa-webhooks.windows.k8s.io" denied the request: pod: reading GMSACredentialSpec "w": API server answered 403 Forbidden: check this function\'s RBAC',
      /^expand has no working credential for the API server, or the API server refuses it/,
    ],
    [
      "a function whose exec plugin fails",
      'admission webhook "authorize.gmsa-webhooks.windows.k8s.io" denied the request: the GMSA webhook could not authenticate to the API server, so it fails closed (review uid 1)',
      /^authorize has no working credential for the API server/,
    ],
  ])("%s", (_what, message, expected) => {
    expect(explainWebhookCallError(message, found)?.message).toMatch(expected);
  });

  it("names a caller credential the functions refuse (401, a one-sided rotation) with the fix of its own", () => {
    const named = explainWebhookCallError(
      callError("authorize", "the server has asked for the client to provide credentials"),
      found,
    );
    expect(named?.message).toMatch(/^authorize refuses the caller credential the API server sends \(401\)/);
    expect(named?.fix).toMatch(
      /CALLER_AUTH_TOKENS or CALLER_AUTH_PATH_SECRET.*helm upgrade --force-conflicts.*Rotating the caller credential/,
    );
  });

  it("leaves a denial of the policy (or another webhook's error) alone", () => {
    expect(
      explainWebhookCallError(
        'admission webhook "authorize.gmsa-webhooks.windows.k8s.io" denied the request: may not use',
        found,
      ),
    ).toBeUndefined();
    expect(
      explainWebhookCallError('failed calling webhook "other.example.com": x509: unknown authority', found),
    ).toBeUndefined();
  });
});

const answer = (status: number, body: unknown): Promise<ClusterAnswer> =>
  Promise.resolve({ status, body, warnings: [] });

const inlined: ClusterAnswer = {
  status: 201,
  body: { spec: { securityContext: { windowsOptions: { gmsaCredentialSpec: "{}" } } } },
  warnings: [],
};

/**
 * A fake API server: access reviews allow `allowed` (`ns/sa/credspec`), dry-run creates answer `create(sa)` (by default
 * a pod with the contents inlined).
 */
function fakeCluster(allowed: string[], create = (_sa: string) => inlined, requests: ClusterRequest[] = []) {
  return {
    request(request: ClusterRequest): Promise<ClusterAnswer> {
      requests.push(request);
      const body = request.body as {
        spec?: { user?: string; serviceAccountName?: string; resourceAttributes?: { namespace: string; name: string } };
      };
      if (request.path.endsWith("/localsubjectaccessreviews")) {
        const { namespace, name } = body.spec!.resourceAttributes!;
        const key = `${namespace}/${body.spec!.user!.split(":").at(-1)}/${name}`;
        return answer(201, { status: { allowed: allowed.includes(key) } });
      }
      if (request.path.endsWith("rolebindings")) {
        const items = [
          { metadata: { namespace: "off" }, subjects: [{ kind: "ServiceAccount", name: "app" }] },
          {
            metadata: { namespace: "web" },
            subjects: [
              { kind: "User", name: "u" },
              { kind: "ServiceAccount", name: "app" },
            ],
          },
        ];
        // RBAC does not validate a ClusterRoleBinding subject's namespace: no pod can run as this one.
        const cluster = [
          { metadata: {}, subjects: [{ kind: "ServiceAccount", name: "app", namespace: "Not_A_Namespace" }] },
        ];
        return answer(200, { items: request.path.includes("cluster") ? cluster : items });
      }
      if (request.path.endsWith("/serviceaccounts"))
        return answer(200, { items: [{ metadata: { name: "app" } }, { metadata: { name: "default" } }] });
      if (request.path.endsWith("/pods")) return Promise.resolve(create(body.spec!.serviceAccountName!));
      return answer(404, {});
    },
  };
}

const subjects = {
  credspec: "w1",
  allowed: { namespace: "web", name: "app" },
  refused: { namespace: "web", name: "default" },
};
const refusedByAuthorize = {
  status: 403,
  body: { message: 'admission webhook "authorize.gmsa-webhooks.windows.k8s.io" denied the request: may not use' },
  warnings: [],
};

describe("the end-to-end probes", () => {
  it("find a bound service account that may use a credspec, outside exempt namespaces, and the namespace's default that may not", async () => {
    // off/app may use w2 too, but the webhooks exempt its namespace: a probe there would show nothing. A subject
    // that names no possible service account is passed over, not asked about (the review would throw).
    const chosen = await findProbeSubjects(
      fakeCluster(["off/app/w2", "web/app/w2"]),
      ["w1", "w2"],
      {},
      new Set(["off"]),
    );
    expect(chosen).toEqual({ ...subjects, credspec: "w2" });
  });

  it("look only in the namespace given with -n, and warn when nothing there may use a credspec", async () => {
    const result = await findProbeSubjects(fakeCluster(["web/app/w1"]), ["w1"], { namespace: "other" });
    expect(result).toMatchObject({
      status: "warn",
      message: "no service account bound by a RoleBinding or ClusterRoleBinding may use w1: nothing to probe with",
    });
  });

  it("warn, not skip, when the review budget is spent before a service account may use a credspec", async () => {
    // Two bound service accounts (off/app, web/app) for each of 31 credspecs: 62 reviews, over the 60 allowed.
    const credspecs = Array.from({ length: 31 }, (_, i) => `w${i}`);
    const result = await findProbeSubjects(fakeCluster([]), credspecs, {});
    expect(result).toMatchObject({
      check: "end-to-end/may-use",
      status: "warn",
      message: `no service account found that may use ${credspecs.join(", ")} within 60 access reviews`,
      fix: "name one with --service-account",
    });
  });

  it("fail a service account given with a flag that may not use the credspec", async () => {
    const result = await findProbeSubjects(fakeCluster([]), ["w1"], {
      serviceAccount: { namespace: "web", name: "app" },
    });
    expect(result).toMatchObject({ status: "fail", message: "service account web/app may not use w1" });
  });

  it("pass when expand inlines for one and authorize refuses the other with 403, each timed, as dry runs", async () => {
    const requests: ClusterRequest[] = [];
    const cluster = fakeCluster([], (sa) => (sa === "app" ? inlined : refusedByAuthorize), requests);
    const findings = await runProbes(cluster, subjects, found);
    expect(findings.map((f) => [f.check, f.status, typeof f.ms])).toEqual([
      ["end-to-end/may-use", "pass", "number"],
      ["end-to-end/may-not-use", "pass", "number"],
    ]);
    expect(requests.filter((r) => r.path.endsWith("/pods")).map((r) => r.query)).toEqual([
      { dryRun: "All" },
      { dryRun: "All" },
    ]);
  });

  it("fail a pod admitted without contents (expand did not run) and one admitted that authorize should refuse", async () => {
    const cluster = fakeCluster([], () => ({ status: 201, body: { spec: {} }, warnings: [] }));
    const findings = await runProbes(cluster, subjects, found);
    expect(findings.map((f) => [f.status, f.message])).toEqual([
      [
        "fail",
        "a dry-run pod of service account web/app naming w1 was admitted without the contents inlined: expand did not run",
      ],
      ["fail", "a dry-run pod of service account web/default naming w1 was admitted: authorize did not refuse it"],
    ]);
  });
});
