/** Sending one benchmark review to a running function, and the bodies for each cell. */
import type { FunctionsStack } from "../../infra/local/index.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { buildBenchPod, CONTAINER_COUNTS, inlinedContents, reviewBody, type ContainerCount } from "./bench-pods.ts";
import type { LoadOptions } from "./load.ts";

/** Request bodies per function and pod size: expand gets names, authorize names and contents. */
export type ReviewBodies = Record<FunctionName, Record<ContainerCount, string>>;

export function buildReviewBodies(credspecs: ReadonlyMap<string, unknown>): ReviewBodies {
  const contents = inlinedContents(credspecs);
  const forSize = (withContents: boolean) =>
    Object.fromEntries(
      CONTAINER_COUNTS.map((n) => [n, reviewBody(buildBenchPod(n, withContents ? contents : undefined))]),
    ) as Record<ContainerCount, string>;
  return { expand: forSize(false), authorize: forSize(true) };
}

/** The URL of a function's review endpoint, with the timeout the API server would append. */
export function reviewUrl(stack: Pick<FunctionsStack, "expandBaseUrl" | "authorizeBaseUrl">, fn: FunctionName): string {
  return `${fn === "expand" ? stack.expandBaseUrl : stack.authorizeBaseUrl}/${fn}?timeout=10s`;
}

/** An allowed review (expand: with a patch) is the only right answer to the benchmark's pods. */
export function acceptsAllowed(fn: FunctionName): LoadOptions["accept"] {
  return (status, body) =>
    status === 200 && body.includes('"allowed":true') && (fn !== "expand" || body.includes('"patch":'));
}
