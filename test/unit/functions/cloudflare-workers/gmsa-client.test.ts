import { afterEach, describe, expect, it, vi } from "vitest";
import { KubeConfigurationError, parseKubeSettings } from "../../../../shared/config/index.ts";
import { createWorkerGmsaClient } from "../../../../functions/cloudflare-workers/gmsa-client.ts";

const kubeconfig = (user: string, cluster = "server: https://kube.example") => `
current-context: c
clusters: [{ name: k, cluster: { ${cluster} } }]
users: [{ name: u, user: { ${user} } }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
`;

/** The problems creating a client from `env` is refused with. */
function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    createWorkerGmsaClient(parseKubeSettings(env).settings);
  } catch (error) {
    expect(error).toBeInstanceOf(KubeConfigurationError);
    return (error as KubeConfigurationError).problems;
  }
  throw new Error("expected a KubeConfigurationError");
}

describe("createWorkerGmsaClient", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("never follows a redirect with the platform's fetch: the token would go elsewhere, and the answer would be trusted", async () => {
    // A platform fetch follows redirects unless told otherwise; here following yields the contents and the decision a lure chose.
    const asked: (string | undefined)[] = [];
    vi.stubGlobal("fetch", (_input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      asked.push(init?.redirect);
      return Promise.resolve(
        init?.redirect === "manual"
          ? new Response(null, { status: 302, headers: { Location: "https://lure.example/" } })
          : Response.json({ credspec: { lure: true }, status: { allowed: true } }),
      );
    });
    const { client } = createWorkerGmsaClient(parseKubeSettings({ KUBECONFIG: kubeconfig("token: static") }).settings);
    const call = { signal: AbortSignal.timeout(5_000) };
    const never = /answered 302, a redirect, which is never followed/;
    await expect(client.getCredSpecContents("webapp01", call)).rejects.toThrow(never);
    const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };
    await expect(client.canUseCredSpec(query, call)).rejects.toThrow(never);
    expect(asked).toEqual(["manual", "manual"]);
  });

  it("sends a static kubeconfig token, read as kubectl does: lone CR line ends, and a user given twice refused naming the secret", async () => {
    let authorization: string | null = null;
    const fetch = (_input: string | URL | Request, init?: RequestInit) => {
      authorization = new Headers(init?.headers).get("Authorization");
      return Promise.resolve(Response.json({ credspec: {} }));
    };
    const crOnly = kubeconfig("token: static").replaceAll("\n", "\r");
    const { client } = createWorkerGmsaClient(parseKubeSettings({ KUBECONFIG: crOnly }).settings, { fetch });
    await client.getCredSpecContents("a", { signal: AbortSignal.timeout(5_000) });
    expect(authorization).toBe("Bearer static");
    const twice = kubeconfig("token: first").replace("users: [", "users: [{ name: u, user: { token: second } }, ");
    expect(problemsOf({ KUBECONFIG: twice })).toEqual([
      'the KUBECONFIG secret: users: the name "u" is defined more than once (kubectl refuses the file too)',
    ]);
  });

  it.each([
    ["no KUBECONFIG", {}, "KUBECONFIG must hold the kubeconfig YAML (a Workers secret)"],
    [
      "a user without a credential",
      { KUBECONFIG: kubeconfig("") },
      'kubeconfig context "c": no credential; give the user one, or set JWT_* or CLOUD_TOKEN',
    ],
    [
      "an exec user",
      {
        KUBECONFIG: kubeconfig(
          "exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, interactiveMode: Never }",
        ),
      },
      'kubeconfig context "c": exec plugins cannot run on Workers; remove the user\'s exec block and set JWT_* instead',
    ],
  ])("refuses %s: it needs the KUBECONFIG secret and a credential other than exec", (_what, env, problem) => {
    expect(problemsOf(env)).toEqual([problem]);
  });

  it("refuses what Workers' fetch cannot honour, all at once, and warns about an ignored CA", () => {
    const settings = {
      KUBECONFIG: kubeconfig(
        "tokenFile: /t",
        "server: https://k, tls-server-name: kube.internal, proxy-url: http://p, certificate-authority: /ca.crt",
      ),
    };
    expect(problemsOf(settings)).toEqual([
      'kubeconfig cluster "k": certificate-authority files cannot be read on Workers',
      'kubeconfig cluster "k": tls-server-name cannot be honoured by Workers\' fetch',
      'kubeconfig cluster "k": proxy-url cannot be honoured by Workers\' fetch',
      'kubeconfig context "c": tokenFile cannot be read on Workers; use token or JWT_*',
    ]);
    const withCa = parseKubeSettings({
      KUBECONFIG: kubeconfig("token: t", `server: https://k, certificate-authority-data: "${btoa("pem")}"`),
    }).settings;
    expect(createWorkerGmsaClient(withCa).warnings).toEqual([
      'kubeconfig cluster "k": certificate-authority-data is ignored on Workers; the server needs a publicly trusted certificate',
    ]);
  });

  it("refuses CLOUD_TOKEN=aks and gke, whose endpoints a Worker cannot reach", () => {
    expect(problemsOf({ KUBECONFIG: kubeconfig(""), CLOUD_TOKEN: "gke" })).toEqual([
      "CLOUD_TOKEN=gke cannot be used on Workers: the metadata server answers only inside Google's runtimes; set JWT_* or give the user a token",
    ]);
    const aks = {
      KUBECONFIG: kubeconfig(""),
      CLOUD_TOKEN: "aks",
      IDENTITY_ENDPOINT: "http://127.0.0.1:1/msi",
      IDENTITY_HEADER: "h",
    };
    expect(problemsOf(aks)).toEqual([
      "CLOUD_TOKEN=aks cannot be used on Workers: the managed identity endpoint is a local address of the App Service or Azure Functions host; set JWT_* or give the user a token",
    ]);
  });
});
