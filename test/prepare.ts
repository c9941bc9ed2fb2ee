/**
 * Everything a test tier uses that `npm ci` does not bring (Go builds, Debian packages, the image), one {@link Step}
 * each; test/tiers.ts says which steps a tier's selected files need (docs/development.md, Tests). `npm test` starts
 * them at once, and a tier's global setup runs them again: a stamp check once they are done.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ensureDebianAwsCli } from "../infra/local/awscli.ts";
import { aptInstall } from "../infra/local/apt.ts";
import { ensureBinaries, ensureNodeBinaries } from "../infra/local/index.ts";
import { ensureHelm } from "../infra/build/tools/go-build.ts";
import { resolveKubeRelease } from "../infra/local/kube-versions.ts";
import { ensurePrometheusParser } from "../infra/local/prometheus-parser.ts";
import { ensureImage } from "../infra/build/node/image.ts";
import { ensureActionlint } from "../infra/build/release/actionlint.ts";

const run = promisify(execFile);

/** One thing to build or install, once. */
export interface Step {
  /** Stable name, e.g. `kube-v1.37.2`: steps with the same id are one. */
  id: string;
  /** What the progress line calls it. */
  title: string;
  /** The command that does the same by hand, named when the step fails. */
  byHand: string;
  /**
   * `build` steps run one after another (each `go build` already uses every core); `apt` steps one after another
   * beside them (one dpkg lock), since they mostly wait on the network.
   */
  lane: "build" | "apt";
  run(): Promise<unknown>;
}

/** kube-apiserver and etcd of `version` (default: the newest pinned release). */
export function kubeStep(version?: string): Step {
  const release = resolveKubeRelease(version);
  return {
    id: `kube-${release.version}`,
    title: `kube-apiserver ${release.version} and etcd`,
    byHand: `node infra/local/build.ts --kube-version ${release.minor}`,
    lane: "build",
    run: () => ensureBinaries(release.version),
  };
}

/** The local node's programs of `version`: kubelet, scheduler, controller-manager, containerd, CNI, pause, runc. */
export function nodeStep(version?: string): Step {
  const release = resolveKubeRelease(version);
  return {
    id: `node-${release.version}`,
    title: `the node's programs for Kubernetes ${release.version}`,
    byHand: `node infra/local/node-binaries.ts --kube-version ${release.minor}`,
    lane: "build",
    run: () => ensureNodeBinaries(release.version),
  };
}

/** Debian packages whose command must be on PATH. */
function debianCommands(id: string, commands: Record<string, string>): Step {
  const packages = Object.values(commands);
  return {
    id,
    title: `Debian's ${packages.join(", ")}`,
    byHand: `apt-get install -y ${packages.join(" ")}`,
    lane: "apt",
    run: async () => {
      for (const [command, pkg] of Object.entries(commands)) {
        const found = await run("sh", ["-c", 'command -v "$1"', "sh", command]).then(
          () => true,
          () => false,
        );
        if (!found) await aptInstall(pkg);
      }
    },
  };
}

/** The named steps test/tiers.ts uses; the cluster and node steps take a version. */
export const STEPS = {
  helm: {
    id: "helm",
    title: "Helm",
    byHand: "node infra/build/helm/build.ts",
    lane: "build",
    run: ensureHelm,
  },
  actionlint: {
    id: "actionlint",
    title: "actionlint",
    byHand: "node infra/build/release/actionlint.ts",
    lane: "build",
    run: ensureActionlint,
  },
  image: { id: "image", title: "the image", byHand: "npm run image", lane: "build", run: ensureImage },
  awscli: {
    id: "awscli",
    title: "Debian's awscli",
    byHand: "apt-get install -y awscli",
    lane: "apt",
    run: ensureDebianAwsCli,
  },
  prometheusParser: {
    id: "prometheus-parser",
    title: "Debian's Prometheus parser",
    byHand: "apt-get install -y python3-prometheus-client",
    lane: "apt",
    run: ensurePrometheusParser,
  },
  /** What the guides' shell blocks and the release's publishing run besides Node. */
  shellTools: debianCommands("shell-tools", { jq: "jq", openssl: "openssl", zip: "zip", unzip: "unzip" }),
  /** A registry on loopback and the tool that pushes to it (the release's publishing). */
  registry: debianCommands("registry", { "docker-registry": "docker-registry", skopeo: "skopeo" }),
} satisfies Record<string, Step>;

function log(message: string): void {
  process.stderr.write(`[prepare] ${message}\n`);
}

/** Thrown once per failed step, naming it and the command to run by hand. */
export class PrepareError extends Error {
  constructor(step: Step, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`preparing ${step.title} failed: ${reason}\n  to do it by hand: ${step.byHand}`, { cause });
    this.name = "PrepareError";
  }
}

/** Steps started by {@link startPreparing}, each settled once. */
export type Preparing = Map<string, Promise<void>>;

/**
 * Starts `steps` (deduplicated by id, in the order given, each lane in turn) and returns a promise per step id.
 * The returned promises never reject unhandled: await {@link waitFor} for the ones a tier needs. Progress lines count
 * from `started` (default now) and leave out steps ready in under `quietUnderMs` (a stamp check; default 0: none).
 */
export function startPreparing(
  steps: Step[],
  { started = Date.now(), quietUnderMs = 0 }: { started?: number; quietUnderMs?: number } = {},
): Preparing {
  const unique = [...new Map(steps.map((step) => [step.id, step])).values()];
  const preparing: Preparing = new Map();
  const tails: Record<Step["lane"], Promise<unknown>> = { build: Promise.resolve(), apt: Promise.resolve() };
  for (const step of unique) {
    const done = tails[step.lane].then(async () => {
      const begun = Date.now();
      try {
        await step.run();
      } catch (error) {
        log(`${step.title}: FAILED after ${seconds(begun)} (${seconds(started)} since the start)`);
        throw new PrepareError(step, error);
      }
      if (Date.now() - begun >= quietUnderMs)
        log(`${step.title}: ready in ${seconds(begun)} (${seconds(started)} since the start)`);
    });
    // A failed step does not stop the ones after it in its lane: other tiers may not need it.
    tails[step.lane] = done.catch(() => undefined);
    done.catch(() => undefined);
    preparing.set(step.id, done);
  }
  return preparing;
}

/**
 * Waits for `steps` (started by {@link startPreparing}) and returns the errors of those that failed: empty when
 * everything is ready.
 */
export async function waitFor(preparing: Preparing, steps: Step[]): Promise<PrepareError[]> {
  const results = await Promise.allSettled(
    steps.map((step) => preparing.get(step.id) ?? Promise.reject(new Error(`${step.id} was never started`))),
  );
  return results.flatMap((result) => (result.status === "rejected" ? [result.reason as PrepareError] : []));
}

/**
 * Prepares `steps` now (a global setup's way), saying nothing of those already done: resolves when all are ready.
 * @throws AggregateError of every step that failed, each naming its command by hand.
 */
export async function prepare(steps: Step[]): Promise<void> {
  const errors = await waitFor(startPreparing(steps, { quietUnderMs: 1000 }), steps);
  if (errors.length > 0) throw new AggregateError(errors, errors.map((error) => error.message).join("\n"));
}

function seconds(since: number): string {
  return `${Math.round((Date.now() - since) / 1000)} s`;
}
