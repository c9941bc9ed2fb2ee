/**
 * The cluster side of docs/install-container.md through the real API server: the overlay node-in-cluster with the
 * URLs the guide puts in its endpoints.env and the CA the guide's own openssl commands make, applied with a
 * server-side dry run as `kubectl apply -k` would apply it. A copy of infra/ is used; nothing is stored.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { stringify } from "yaml";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";
import { readRepoFile, shellBlockWith } from "../support/guide-text.ts";
import { kubectl } from "./support/kubectl.ts";
import { kustomize } from "./support/manifests.ts";

const run = promisify(execFile);
const cluster = inject("cluster");
const GUIDE = "docs/install-container.md";
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "gmsa-guide-overlay-"));
  for (const folder of ["crd", "rbac", "webhooks", "overlays"])
    await cp(path.join(REPO_ROOT, "infra", "deploy", folder), path.join(dir, "infra", "deploy", folder), {
      recursive: true,
    });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe(`${GUIDE}: the cluster side`, () => {
  it("registers the server's URLs with the guide's CA as caBundle, accepted by the API server (server-side dry run)", async () => {
    const guide = await readRepoFile(GUIDE);
    await run("bash", ["-euo", "pipefail", "-c", shellBlockWith(guide, "-keyout ca-key.pem")], { cwd: dir });
    const urls = [...guide.matchAll(/`((?:EXPAND|AUTHORIZE)_BASE_URL=https:\/\/[^`]+)`/g)].map((match) => match[1]!);
    expect(urls).toHaveLength(2);
    const overlay = path.join(dir, "infra/deploy/overlays/node-in-cluster");
    await writeFile(path.join(overlay, "endpoints.env"), `${urls.join("\n")}\n`);
    await cp(path.join(dir, "ca.pem"), path.join(overlay, "ca.pem"));
    // Rendered as `kubectl apply -k` renders it; the objects inside the namespace gmsa-webhooks are left out, since a
    // dry run does not create that namespace for them.
    const objects = await kustomize(overlay);
    const clusterScoped = objects.filter((object) => object.metadata.namespace === undefined);
    expect(clusterScoped.map((object) => object.kind)).toEqual(
      expect.arrayContaining(["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]),
    );
    const manifest = path.join(dir, "cluster-scoped.yaml");
    await writeFile(manifest, clusterScoped.map((object) => stringify(object)).join("---\n"));
    const apply = ["apply", "--dry-run=server", "-f", manifest, "-o", "json"];
    const { stdout } = await kubectl(["--kubeconfig", cluster.adminKubeconfig, ...apply]);
    const { items } = JSON.parse(stdout) as {
      items: { kind: string; webhooks?: { clientConfig: { url: string; caBundle: string } }[] }[];
    };
    const webhooks = items
      .filter((item) => item.kind.endsWith("WebhookConfiguration"))
      .flatMap((item) => item.webhooks ?? []);
    expect(webhooks.map((w) => w.clientConfig.url).sort()).toEqual([
      "https://gmsa.example.com:8443/expand",
      "https://gmsa.example.com:8444/authorize",
    ]);
    const ca = await readFile(path.join(dir, "ca.pem"), "utf8");
    for (const webhook of webhooks) expect(Buffer.from(webhook.clientConfig.caBundle, "base64").toString()).toBe(ca);
  });
});
