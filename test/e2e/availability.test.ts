/**
 * Availability under change, on the real node (issue 24): while senders create GMSA pods through the API server
 * without pause (server-side dry run: the same admission, nothing stored), the chart's release goes through each change
 * below. Prints per event the creates attempted, admitted correctly, refused wrongly and failed (500 or timeout).
 */
import { X509Certificate } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import { adminEndpoint, applyObjects, kubeRequest, kubeRequestOk } from "../../infra/local/index.ts";
import {
  localNodeValues,
  startInClusterStack,
  waitForDeployments,
  type InClusterStack,
} from "../../infra/local/in-cluster.ts";
import { NODE_NAME } from "../../infra/local/node-config.ts";
import { FUNCTIONS, functionPods, gmsaPod, installOnNode, isReady, writeTlsSecret } from "./support/install-checks.ts";
import { podServerProcesses } from "./support/node-pods.ts";
import { createPod } from "./support/pods.ts";
import { namespace } from "./support/core-objects.ts";

const GROUP = "availability";
const NAMESPACE = "gmsa-availability";
const RELEASE = "gwa";
const FULLNAME = `${RELEASE}-gmsa-webhooks`;
const SECRET = "gwa-tls";
const SENDERS = 4;

interface Tally {
  attempted: number;
  admitted: number;
  refusedWrongly: number;
  failed: number;
}

let stack: InClusterStack;
let values: Record<string, unknown>;
const rows: (Tally & { event: string; seconds: number })[] = [];
const admin = () => adminEndpoint(stack.cluster);

/** Creates GMSA pods (dry run) from {@link SENDERS} loops until `done` resolves, and counts the outcomes. */
async function measure(event: string, change: () => Promise<void>): Promise<Tally> {
  const tally: Tally = { attempted: 0, admitted: 0, refusedWrongly: 0, failed: 0 };
  let running = true;
  const started = Date.now();
  const senders = Array.from({ length: SENDERS }, async (_, sender) => {
    for (let n = 0; running; n++) {
      tally.attempted++;
      try {
        const created = await createPod(stack.cluster, gmsaPod(GROUP, `s${sender}-${n}`, "gmsa-app"), { dryRun: true });
        if (created.status === 201 && created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)
          tally.admitted++;
        else if (created.status === 403 || created.status === 422 || created.status === 400) tally.refusedWrongly++;
        else tally.failed++;
      } catch {
        tally.failed++;
      }
    }
  });
  try {
    await change();
    // Settle: what the change left behind must serve too.
    await sleep(2000);
  } finally {
    running = false;
    await Promise.all(senders);
  }
  rows.push({ event, seconds: (Date.now() - started) / 1000, ...tally });
  return tally;
}

const pods = (fn: string) => functionPods(stack.cluster, NAMESPACE, FULLNAME, fn);

function evict(name: string) {
  return kubeRequest(admin(), `/api/v1/namespaces/${NAMESPACE}/pods/${name}/eviction`, {
    method: "POST",
    body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: NAMESPACE } },
  });
}

/** Waits until the disruption controller counts both replicas of `fn` healthy (one disruption allowed). */
async function waitForDisruptionAllowed(fn: string): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt++) {
    const pdb = await kubeRequest<{ status?: { disruptionsAllowed?: number } }>(
      admin(),
      `/apis/policy/v1/namespaces/${NAMESPACE}/poddisruptionbudgets/${FULLNAME}-${fn}`,
    );
    if (pdb.body.status?.disruptionsAllowed === 1) return;
    await sleep(250);
  }
  throw new Error(`PodDisruptionBudget ${FULLNAME}-${fn} never allowed a disruption`);
}

function cordon(unschedulable: boolean) {
  return kubeRequestOk(admin(), `/api/v1/nodes/${NODE_NAME}`, {
    method: "PATCH",
    contentType: "application/merge-patch+json",
    body: { spec: { unschedulable } },
  });
}

/** Writes the release's TLS Secret with a new leaf from the cluster CA; returns the leaf's serial number. */
async function writeServingSecret(create: boolean): Promise<string> {
  const hosts = FUNCTIONS.map((fn) => `${FULLNAME}-${fn}.${NAMESPACE}.svc`);
  const pem = await writeTlsSecret(stack.cluster, { namespace: NAMESPACE, name: SECRET, hosts, create });
  return new X509Certificate(pem).serialNumber;
}

function servedSerial(podIp: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: podIp, port: 8443, rejectUnauthorized: false, servername: `${FULLNAME}-expand.${NAMESPACE}.svc` },
      () => {
        resolve(socket.getPeerX509Certificate()?.serialNumber ?? "");
        socket.end();
      },
    );
    // A pod that went away leaves an address nobody answers: give up on it rather than wait for TCP's own timeout.
    socket.setTimeout(2000, () => socket.destroy(new Error(`no TLS answer from ${podIp}:8443 within 2 s`)));
    socket.once("error", reject);
  });
}

/** The IPs of the pods that serve: Ready and not being deleted (a drained replica's successor may still be terminating). */
async function podIps(): Promise<string[]> {
  const serving = (await Promise.all(FUNCTIONS.map(pods))).flat().filter(isReady);
  return serving.map((pod) => pod.status?.podIP ?? "").filter(Boolean);
}

beforeAll(async () => {
  stack = await startInClusterStack({ progress: (message) => process.stderr.write(`[availability] ${message}\n`) });
  await applyObjects(admin(), [namespace(NAMESPACE)]);
  await writeServingSecret(true);
  values = {
    ...localNodeValues(stack.image, stack.callerToken),
    certificates: { secretName: SECRET, caBundle: Buffer.from(stack.cluster.caPem).toString("base64") },
  };
  await installOnNode(stack, { release: RELEASE, namespace: NAMESPACE, values, group: GROUP });
}, 600_000);

afterAll(async () => {
  if (rows.length > 0) {
    const table = [
      "| event | seconds | creates attempted | admitted correctly | refused wrongly | failed (500 or timeout) |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      ...rows.map(
        (r) =>
          `| ${r.event} | ${r.seconds.toFixed(1)} | ${r.attempted} | ${r.admitted} | ${r.refusedWrongly} | ${r.failed} |`,
      ),
    ];
    console.log(
      `\nAvailability under change (${SENDERS} senders, dry-run creates through the API server):\n${table.join("\n")}\n`,
    );
  }
  await stack?.stop();
}, 120_000);

describe("availability of both functions under change, on a real node", () => {
  it("loses no create during a helm upgrade that rolls both Deployments", async () => {
    const tally = await measure("helm upgrade (rolling)", async () => {
      const upgraded = await stack.runHelm(["upgrade", RELEASE, CHART_DIR, "-n", NAMESPACE], {
        ...values,
        podAnnotations: { "gmsa-webhooks.local/rollout": "1" },
      });
      expect(upgraded.code, upgraded.stderr).toBe(0);
      await sleep(1000);
      await waitForDeployments(stack.cluster, NAMESPACE, FULLNAME, 2);
    });
    expect(tally).toMatchObject({ refusedWrongly: 0, failed: 0 });
    expect(tally.admitted).toBeGreaterThan(0);
  }, 240_000);

  it("loses no create during a drain: one replica of each evicted, the last refused (429) until uncordoned", async () => {
    const tally = await measure("drain (Eviction API, cordoned)", async () => {
      for (const fn of FUNCTIONS) await waitForDisruptionAllowed(fn);
      await cordon(true);
      for (const fn of FUNCTIONS) {
        const [first, second] = await pods(fn);
        expect((await evict(first!.metadata.name)).status).toBe(201);
        expect((await evict(second!.metadata.name)).status).toBe(429);
      }
      // The evicted replicas' successors cannot be scheduled: the last replica of each function serves alone.
      await sleep(5000);
      await cordon(false);
      await waitForDeployments(stack.cluster, NAMESPACE, FULLNAME, 2);
    });
    expect(tally).toMatchObject({ refusedWrongly: 0, failed: 0 });
  }, 240_000);

  it("loses no create while the serving certificate is renewed in its Secret", async () => {
    const tally = await measure("certificate renewal", async () => {
      const serial = await writeServingSecret(false);
      // The kubelet refreshes Secret volumes on its sync (10 s here); the servers reload the files they watch.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const served = await Promise.all((await podIps()).map((ip) => servedSerial(ip).catch(() => "")));
        if (served.length === 4 && served.every((s) => s === serial)) break;
        if (Date.now() > deadline)
          throw new Error(`the pods serve ${served.join(", ")}, not the renewed ${serial}, after 120 s`);
        await sleep(500);
      }
    });
    expect(tally).toMatchObject({ refusedWrongly: 0, failed: 0 });
  }, 240_000);

  it("fails creates only until a replica killed outright leaves the endpoints", async () => {
    const [victim] = await pods("expand");
    const tally = await measure("one expand replica killed (SIGKILL)", async () => {
      const process_ = podServerProcesses().find(
        (p) =>
          p.memoryCgroup.includes(victim!.metadata.uid.replaceAll("-", "_")) ||
          p.memoryCgroup.includes(victim!.metadata.uid),
      );
      expect(process_, "the victim's server process").toBeDefined();
      process.kill(process_!.pid, "SIGKILL");
      // The kubelet restarts the container in place; the window lasts until it is Ready again.
      for (let attempt = 0; ; attempt++) {
        const pod = await kubeRequestOk<{
          status?: { containerStatuses?: { restartCount: number; ready: boolean }[] };
        }>(admin(), `/api/v1/namespaces/${NAMESPACE}/pods/${victim!.metadata.name}`);
        const status = pod.status?.containerStatuses?.[0];
        if (status && status.restartCount >= 1 && status.ready) break;
        if (attempt === 240) throw new Error("the killed replica was not restarted and Ready within 60 s");
        await sleep(250);
      }
    });
    const row = rows.at(-1)!;
    expect(tally.refusedWrongly).toBe(0);
    // Bounded: the creates sent to the dead replica before its endpoint went, at most 3 s of the senders' rate.
    expect(tally.failed).toBeLessThanOrEqual(Math.max(20, (row.attempted / row.seconds) * 3));
  }, 240_000);
});
