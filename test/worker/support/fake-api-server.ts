/**
 * A small stand-in for the two API-server endpoints the functions call, for the Worker tier only (the
 * real kube-apiserver is exercised in test/e2e). It serves HTTPS with a test CA and verifies the caller's
 * JWT against the JWKS the function publishes, so the Worker's JWT token source is checked end to end; or, with
 * `acceptBearer`, accepts the tokens that function accepts (the clouds' tokens, which only the cloud can verify).
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";

export interface FakeApiServer {
  url: string;
  /** Claims of every verified token, in arrival order. */
  tokens: JWTPayload[];
  /** Every bearer `acceptBearer` accepted, in arrival order. */
  bearers: string[];
  calls: string[];
  close(): Promise<void>;
}

export interface FakeApiOptions {
  jwks: JSONWebKeySet;
  issuer: string;
  audience: string;
  credspecs: Record<string, unknown>;
  /** "namespace/serviceAccount/credspec" triples allowed to use. */
  allowed: string[];
  /** Serving certificate and key (PEM), signed by a CA the Worker's outbound fetch is told to trust. */
  tls: { cert: string; key: string };
  /** Accept the bearers this says yes to, instead of verifying a JWT. */
  acceptBearer?: (token: string) => boolean;
}

export async function startFakeApiServer(options: FakeApiOptions): Promise<FakeApiServer> {
  const keys = createLocalJWKSet(options.jwks);
  const tokens: JWTPayload[] = [];
  const bearers: string[] = [];
  const calls: string[] = [];
  const server: Server = createServer({ cert: options.tls.cert, key: options.tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const reply = (status: number, body: unknown) => {
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        };
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
        try {
          if (options.acceptBearer === undefined) {
            const { payload } = await jwtVerify(token ?? "", keys, {
              issuer: options.issuer,
              audience: options.audience,
            });
            tokens.push(payload);
          } else if (token !== undefined && options.acceptBearer(token)) bearers.push(token);
          else throw new Error("bearer refused");
        } catch {
          return reply(401, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Unauthorized", code: 401 });
        }
        calls.push(`${req.method} ${req.url}`);
        const credspec = /^\/apis\/windows\.k8s\.io\/v1\/gmsacredentialspecs\/([^/?]+)/.exec(req.url ?? "");
        if (req.method === "GET" && credspec?.[1] !== undefined) {
          const contents = options.credspecs[credspec[1]];
          if (contents === undefined) {
            // As kube-apiserver answers for a missing object of a served resource.
            return reply(404, {
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              reason: "NotFound",
              code: 404,
              message: `gmsacredentialspecs.windows.k8s.io "${credspec[1]}" not found`,
              details: { name: credspec[1], group: "windows.k8s.io", kind: "gmsacredentialspecs" },
            });
          }
          return reply(200, {
            apiVersion: "windows.k8s.io/v1",
            kind: "GMSACredentialSpec",
            metadata: { name: credspec[1] },
            credspec: contents,
          });
        }
        const lsar = /^\/apis\/authorization\.k8s\.io\/v1\/namespaces\/([^/]+)\/localsubjectaccessreviews/.exec(
          req.url ?? "",
        );
        if (req.method === "POST" && lsar !== null) {
          const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
            spec: { user: string; resourceAttributes: { name: string; namespace: string } };
          };
          const sa = review.spec.user.split(":").at(-1);
          const allowed = options.allowed.includes(
            `${review.spec.resourceAttributes.namespace}/${sa}/${review.spec.resourceAttributes.name}`,
          );
          return reply(201, {
            ...review,
            status: { allowed, ...(allowed ? {} : { reason: "no RBAC policy matched" }) },
          });
        }
        return reply(404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    tokens,
    bearers,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
