/**
 * docs/operations.md's rotation of the caller credential, on a real node, with pods created throughout: the chart in
 * inCluster mode with `callerAuth.mode: path` (the webhook URL carries the secret, so the API server's side changes
 * with the same `helm upgrade`; bearer's side is the API server's admission kubeconfig, read at its start).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import { adminEndpoint, kubeRequestOk } from "../../infra/local/index.ts";
import {
  localNodeValues,
  startInClusterStack,
  waitForDeployments,
  type InClusterStack,
} from "../../infra/local/in-cluster.ts";
import { FUNCTIONS, installOnNode, registeredWebhooks } from "./support/install-checks.ts";
import { expectNoPodRefusedDuring } from "./support/pod-stream.ts";

const GROUP = "caller-rotation";
const NAMESPACE = "gmsa-caller-rotation";
const RELEASE = "gwr";
const FULLNAME = `${RELEASE}-gmsa-webhooks`;
const OLD = randomBytes(24).toString("hex");
const NEW = randomBytes(24).toString("hex");

let stack: InClusterStack;

const valuesWith = (secret: string) => ({
  ...localNodeValues(stack.image, stack.callerToken),
  callerAuth: { mode: "path", expand: secret, authorize: secret },
});

const webhookPaths = async () =>
  (await registeredWebhooks(stack.cluster, FULLNAME)).map(([webhook]) => webhook!.clientConfig.service!.path);

/** Each function's Deployment generation: a change of its pod template (the checksum annotation) raises it. */
async function generations(): Promise<number[]> {
  const admin = adminEndpoint(stack.cluster);
  const deployments = await Promise.all(
    FUNCTIONS.map((fn) =>
      kubeRequestOk<{ metadata: { generation: number } }>(
        admin,
        `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${FULLNAME}-${fn}`,
      ),
    ),
  );
  return deployments.map((d) => d.metadata.generation);
}

/**
 * `helm upgrade --wait` to `secret`, with pods created throughout and for 3 s after, none refused; expects both
 * Deployments rolled by the upgrade itself (no restart by hand).
 */
async function rotateStep(secret: string) {
  const before = await generations();
  let upgraded: { code: number; stderr: string } | undefined;
  await expectNoPodRefusedDuring(stack.cluster, GROUP, async () => {
    upgraded = await stack.runHelm(
      ["upgrade", RELEASE, CHART_DIR, "-n", NAMESPACE, "--wait", "--timeout", "5m"],
      valuesWith(secret),
    );
    await waitForDeployments(stack.cluster, NAMESPACE, FULLNAME, 2).catch((error: unknown) => error);
  });
  expect(upgraded!.code, upgraded!.stderr).toBe(0);
  const after = await generations();
  expect(
    after.map((generation, i) => generation > before[i]!),
    `generations ${before.join(",")} -> ${after.join(",")}`,
  ).toEqual([true, true]);
}

beforeAll(async () => {
  stack = await startInClusterStack({ progress: (message) => process.stderr.write(`[caller-rotation] ${message}\n`) });
  await installOnNode(stack, { release: RELEASE, namespace: NAMESPACE, values: valuesWith(OLD), group: GROUP });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
}, 120_000);

describe("rotating the path secret in three helm upgrades (docs/operations.md), pods created throughout", () => {
  it.each([
    ["1. both accepted, old first: the pods roll, the webhooks keep the old path", `${OLD},${NEW}`, OLD],
    ["2. both accepted, new first: the webhooks switch to the new path", `${NEW},${OLD}`, NEW],
    ["3. the new alone: the pods roll again and the old is refused by none of the API server's calls", NEW, NEW],
  ])(
    "%s; 0 refused",
    async (_, secrets, called) => {
      await rotateStep(secrets);
      expect(await webhookPaths()).toEqual([`/expand/${called}`, `/authorize/${called}`]);
    },
    360_000,
  );
});
