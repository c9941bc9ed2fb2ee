import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  issueServingCertificate,
  type CertificateAuthority,
  type CertificatePair,
} from "../../../../infra/local/pki.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { createTestCa } from "../../../support/test-pki.ts";
import { checkFunction } from "../../../../cli/doctor/certificates.ts";
import type { DoctorCluster, Finding } from "../../../../cli/doctor/findings.ts";
import type { FoundWebhook } from "../../../../cli/doctor/webhooks.ts";
import { run } from "../../support/run.ts";

const DAY = 86_400_000;

function expectFinding(found: Finding | undefined, status: Finding["status"], message: RegExp): void {
  expect(found?.status, found?.message).toBe(status);
  expect(found?.message).toMatch(message);
}
const b64 = (pem: string) => Buffer.from(pem).toString("base64");
const hook = (clientConfig: NonNullable<FoundWebhook["webhook"]["clientConfig"]>): FoundWebhook => ({
  fn: "expand",
  configName: "gmsa-webhooks-expand",
  webhook: { name: "expand.gmsa-webhooks.windows.k8s.io", clientConfig },
});
const service = (caBundle?: string) =>
  hook({ service: { namespace: "ns", name: "svc" }, ...(caBundle === undefined ? {} : { caBundle }) });
/** An API server whose service proxy answers /readyz with 200. */
const proxy = { request: () => Promise.resolve({ status: 200, body: "ok", warnings: [] }) };
const noProxy = { request: () => Promise.reject(new Error("not used for a URL")) };
/** The certificate findings of one function; for a URL the last is about the certificate it serves. */
async function certificates(found: FoundWebhook, now: number): Promise<Finding[]> {
  return (await checkFunction(found.webhook.clientConfig?.url ? noProxy : proxy, found, now)).filter(
    (f) => f.check === "certificates/expand",
  );
}
const urlCertificate = async (found: FoundWebhook, now: number) => (await certificates(found, now)).at(-1);
const readyz = async (cluster: DoctorCluster, found: FoundWebhook) =>
  (await checkFunction(cluster, found, Date.now())).find((f) => f.check === "readyz/expand")!;

let dir: string;
let ca: CertificateAuthority;
let other: CertificateAuthority;
let serving: CertificatePair;
let server: Server;
let base: string;
let readyStatus = 200;
/** How /readyz sends its body: at once, a byte every 100 ms without end, or megabytes without end. */
let readyBody: "line" | "trickle" | "flood" = "line";

beforeAll(async () => {
  dir = await tempDir("doctor-certs-");
  [ca, other] = await Promise.all([createTestCa(dir, "ca"), createTestCa(dir, "other")]);
  serving = await issueServingCertificate(ca, dir, "serving", ["localhost"]);
  server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    res.writeHead(req.url === "/readyz" ? readyStatus : 404);
    if (readyBody === "line") return void res.end(readyStatus === 200 ? "ok" : "no credential for the API server");
    const write = () => {
      if (!res.destroyed)
        res.write(readyBody === "trickle" ? "." : "x".repeat(1 << 20), () =>
          setTimeout(write, readyBody === "trickle" ? 100 : 0),
        );
    };
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `https://localhost:${(server.address() as { port: number }).port}`;
}, 60_000);

afterAll(() => {
  server?.close();
});

describe("caBundle", () => {
  it("reads every certificate of a base64 PEM bundle, and nothing else", async () => {
    // Both expired by then: one finding for each certificate.
    expect(
      (await certificates(service(b64(ca.certPem + other.certPem)), Date.parse("2999-01-01"))).map((f) => f.status),
    ).toEqual(["fail", "fail"]);
    expectFinding((await certificates(service(b64("not a certificate")), 0))[0], "fail", /holds no PEM certificate/);
  });

  it("passes a valid CA, warns inside the 30-day renewal window, fails once expired", async () => {
    const validTo = Date.parse(new X509Certificate(ca.certPem).validTo);
    const found = service(b64(ca.certPem));
    expect((await certificates(found, validTo - 40 * DAY))[0]?.status).toBe("pass");
    expectFinding((await certificates(found, validTo - 10 * DAY))[0], "warn", /expires in 10 days.*renewal window/);
    expectFinding(
      (await certificates(found, validTo + 1000))[0],
      "fail",
      /the caBundle of gmsa-webhooks-expand .* expired on/,
    );
  });

  it("fails a service reference without a caBundle, passes a URL without one (system roots)", async () => {
    expect((await certificates(service(), 0))[0]?.status).toBe("fail");
    expect((await certificates(hook({ url: "https://127.0.0.1:1/expand" }), 0))[0]?.status).toBe("pass");
  });
});

describe("a URL's certificate, from where doctor runs", () => {
  it("passes when the chain verifies with the caBundle and the name matches, masking a path secret", async () => {
    const result = await urlCertificate(
      hook({ url: `${base}/expand/abcdef`, caBundle: b64(ca.certPem) }),
      Date.now() - 400 * DAY,
    );
    expectFinding(result, "pass", /from where doctor runs: the chain verifies/);
    expect(result?.message).toContain(`${base}/expand/*** from where doctor runs`);
    expect(result?.message).not.toContain("abcdef");
  });

  it("fails a certificate that does not name the host", async () => {
    const result = await urlCertificate(
      hook({ url: base.replace("localhost", "127.0.0.1") + "/expand", caBundle: b64(ca.certPem) }),
      Date.now(),
    );
    expectFinding(result, "fail", /127\.0\.0\.1/);
  });

  it("fails an expired caBundle CA", async () => {
    const [csr, crt] = [join(dir, "old.csr"), join(dir, "old.crt")];
    // Self-signed again with the CA's key and name (createTestCa names it after its folder), valid for no days.
    await run("openssl", ["req", "-new", "-key", ca.keyFile, "-subj", "/CN=ca", "-out", csr]);
    await run("openssl", ["x509", "-req", "-in", csr, "-signkey", ca.keyFile, "-days", "0", "-out", crt]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const result = await urlCertificate(
      hook({ url: `${base}/expand`, caBundle: b64(await readFile(crt, "utf8")) }),
      Date.now(),
    );
    expectFinding(result, "fail", /expired/);
  });
});

it("warns, not fails, when doctor cannot reach a URL: the API server may", async () => {
  const result = await urlCertificate(
    hook({ url: "https://127.0.0.1:1/expand", caBundle: b64(ca.certPem) }),
    Date.now(),
  );
  expectFinding(result, "warn", /https:\/\/127\.0\.0\.1:1\/expand cannot be reached from where doctor runs/);
  expectFinding(
    await readyz(noProxy, hook({ url: "https://127.0.0.1:1/expand" })),
    "warn",
    /\/readyz could not be read from https:\/\/127\.0\.0\.1:1\/readyz from where doctor runs/,
  );
});

describe("readyz", () => {
  it("reads /readyz beside the review path, and fails with the function's reason", async () => {
    readyStatus = 200;
    expect(await readyz(noProxy, hook({ url: `${base}/expand/s3cret-path`, caBundle: b64(ca.certPem) }))).toMatchObject(
      { status: "pass" },
    );
    readyStatus = 503;
    const result = await readyz(noProxy, hook({ url: `${base}/expand/s3cret-path` }));
    expectFinding(result, "fail", /expand is not ready: .* answered 503: no credential for the API server/);
    expect(result.message).not.toContain("s3cret");
  });

  it("gives up on a /readyz that trickles after 5 s in all, and reads at most 4 KiB of one that floods", async () => {
    readyStatus = 503;
    readyBody = "trickle";
    const started = Date.now();
    const trickled = await readyz(noProxy, hook({ url: `${base}/expand` }));
    expect(Date.now() - started).toBeLessThan(8000);
    expectFinding(trickled, "warn", /could not be read .*: no answer within 5000 ms/);
    readyBody = "flood";
    const flooded = await readyz(noProxy, hook({ url: `${base}/expand` }));
    expectFinding(flooded, "fail", /answered 503: x+/);
    expect(flooded.message.length).toBeLessThan(4096 + 500);
    readyBody = "line";
  }, 20_000);

  it("reads a service reference's /readyz through the API server's service proxy", async () => {
    const paths: string[] = [];
    const recording = { request: ({ path }: { path: string }) => (paths.push(path), proxy.request()) };
    expect(
      await readyz(recording, hook({ service: { namespace: "gmsa", name: "gmsa-webhooks-expand", port: 8443 } })),
    ).toMatchObject({ status: "pass" });
    expect(paths).toEqual(["/api/v1/namespaces/gmsa/services/https:gmsa-webhooks-expand:8443/proxy/readyz"]);
  });

  describe("says why a service reference's function does not answer, from its Deployment", () => {
    const ref = hook({ service: { namespace: "gmsa", name: "gmsa-webhooks-expand", port: 8443 } });
    /** The proxy's 503 with no endpoints, and `deployment` (or a status) for the Deployment of the Service's name. */
    const cluster = (deployment: unknown, status = 200) => ({
      request: ({ path }: { path: string }) =>
        Promise.resolve(
          path.startsWith("/apis/apps/v1/namespaces/gmsa/deployments/gmsa-webhooks-expand")
            ? { status, body: deployment, warnings: [] }
            : {
                status: 503,
                body: { kind: "Status", message: 'no endpoints available for service "gmsa-webhooks-expand"' },
                warnings: [],
              },
        ),
    });

    it("no replica Ready: names how many there are and where to look", async () => {
      const result = await readyz(cluster({ spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: 0 } }), ref);
      expectFinding(result, "fail", /none of the 2 replicas of Deployment gmsa\/gmsa-webhooks-expand is Ready/);
      expect(result.fix).toMatch(/kubectl logs -n gmsa deploy\/gmsa-webhooks-expand/);
    });

    it("without a readable Deployment, or with Ready replicas, the proxy's own answer", async () => {
      for (const c of [
        cluster(undefined, 404),
        cluster(undefined, 403),
        cluster({ spec: { replicas: 2 }, status: { readyReplicas: 1 } }),
      ]) {
        expectFinding(await readyz(c, ref), "fail", /expand is not ready: .* answered 503: no endpoints available/);
      }
    });
  });
});
