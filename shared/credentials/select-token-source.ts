/** Which credential a kubeconfig context, JWT_* and CLOUD_TOKEN give on a runtime: one rule for every runtime, over the sources in sources/. */
import type { KubeTarget } from "../kubeconfig/kube-target.ts";
import {
  findTokenSourceKind,
  TOKEN_SOURCES,
  type ConfiguredTokenSources,
  type TokenSourceCapabilities,
  type TokenSourceChoice,
} from "./sources/index.ts";

export type { TokenSourceCapabilities, TokenSourceChoice } from "./sources/index.ts";

/** The credential of `target`'s user, else the one set by variables (two at once is a problem); no choice with a problem. */
export function selectTokenSource(
  target: KubeTarget,
  configured: ConfiguredTokenSources,
  can: TokenSourceCapabilities,
): { choice: TokenSourceChoice | undefined; problems: string[] } {
  const { auth } = target;
  const where = `kubeconfig context "${target.contextName}"`;
  const problems: string[] = [];
  const set = TOKEN_SOURCES.flatMap((source) => {
    const chosen = source.configured?.choose(configured);
    return chosen === undefined ? [] : [{ source, ...chosen }];
  });
  if (auth.kind !== "none") {
    for (const { label } of set)
      problems.push(`${where}: the user has a credential of its own and ${label} is set too; keep one`);
  }
  if (set.length > 1) problems.push(`${set.map(({ label }) => label).join(" and ")} are both set; keep one`);
  for (const { source, choice } of set) {
    const unusable = source.unusable?.(can, choice);
    if (unusable !== undefined) problems.push(unusable);
  }
  let choice: TokenSourceChoice | undefined;
  if (auth.kind !== "none") {
    const unusable = findTokenSourceKind(auth).unusable?.(can, auth);
    if (unusable === undefined) choice = auth;
    else problems.push(`${where}: ${unusable}`);
  } else if (set[0] !== undefined) choice = set[0].choice;
  else {
    const variables = TOKEN_SOURCES.flatMap((source) => (source.configured ? [source.configured.variables] : []));
    problems.push(`${where}: no credential; give the user one, or set ${variables.join(" or ")}`);
  }
  return { choice: problems.length > 0 ? undefined : choice, problems };
}
