/**
 * How many of our files one warm review runs code in (issue 36), by V8 precise coverage over a second identical
 * review. `node test/bench/review-files.ts [--json]`; the bench runs it in a fresh process.
 */
import { execFile } from "node:child_process";
import { Session } from "node:inspector/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import type { FunctionName } from "../../shared/config/index.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const COUNTED = ["functions/", "shared/"];

/** Our files (repository-relative, sorted) a warm review of each function runs code in. */
export type ReviewFiles = Record<FunctionName, string[]>;

/**
 * Counts the files in this process. Call it before anything has loaded the app's modules (as `node
 * test/bench/review-files.ts` does): coverage started later misses functions V8 has already optimized or inlined.
 */
export async function countReviewFiles(): Promise<ReviewFiles> {
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    // Started before the app's modules load, so every function of theirs has a call counter from its first call.
    await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

    const { createFakeGmsaClient } = await import("../support/fake-gmsa-client.ts");
    const { applyReplyPatch } = await import("../support/reviews.ts");
    const { BENCH_NAMESPACE, BENCH_SERVICE_ACCOUNT, benchCredSpec, benchCredSpecName, buildBenchPod, reviewBody } =
      await import("./bench-pods.ts");
    const { createBenchApp, reviewRequest } = await import("./in-process.ts");

    const credSpecName = benchCredSpecName(0);
    const gmsa = createFakeGmsaClient({
      credspecs: { [credSpecName]: benchCredSpec(0) },
      allowed: [{ namespace: BENCH_NAMESPACE, serviceAccount: BENCH_SERVICE_ACCOUNT, credSpecName }],
    });
    const app = createBenchApp(gmsa);

    const review = async (fn: FunctionName, body: string): Promise<AdmissionReviewResponse> => {
      const res = await app.fetch(reviewRequest(fn, body));
      const reply = (await res.json()) as AdmissionReviewResponse;
      if (res.status !== 200 || !reply.response.allowed)
        throw new Error(`${fn}: expected an allowed review, got ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
      return reply;
    };

    /** Our files with a function that ran since the last take (each take resets the counters). */
    const takeFilesRun = async (): Promise<string[]> => {
      const { result } = await session.post("Profiler.takePreciseCoverage");
      const files = result
        .filter(
          (script) =>
            script.url.startsWith("file://") &&
            script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)),
        )
        .map((script) => relative(ROOT, fileURLToPath(script.url)))
        .filter((file) => COUNTED.some((folder) => file.startsWith(folder)));
      return [...new Set(files)].sort();
    };

    const pod = buildBenchPod(1);
    const expandBody = reviewBody(pod);
    const authorizeBody = reviewBody(applyReplyPatch(pod, await review("expand", expandBody)));
    const files = {} as ReviewFiles;
    for (const [fn, body] of [
      ["authorize", authorizeBody],
      ["expand", expandBody],
    ] as const) {
      await review(fn, body);
      await takeFilesRun();
      await review(fn, body);
      files[fn] = await takeFilesRun();
    }
    await session.post("Profiler.stopPreciseCoverage");
    return files;
  } finally {
    session.disconnect();
  }
}

/** {@link countReviewFiles} in a fresh `node` process, so that nothing has loaded or warmed the app before it. */
export async function measureReviewFiles(): Promise<ReviewFiles> {
  const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), "--json"]);
  return JSON.parse(stdout) as ReviewFiles;
}

if (import.meta.main) {
  const files = await countReviewFiles();
  if (process.argv.includes("--json")) {
    process.stdout.write(JSON.stringify(files));
  } else {
    for (const fn of ["authorize", "expand"] as const)
      console.log(`files a warm ${fn} review crosses: ${files[fn].length} (${files[fn].join(", ")})`);
  }
}
