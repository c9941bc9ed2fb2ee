/**
 * One finding about a credential spec document at a JSON path (`ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Scope`,
 * "" for the document). Messages never hold the values found: `PluginInput` may hold credentials.
 */
export interface CredSpecProblem {
  path: string;
  message: string;
}

/** Renders a problem as one line, `path: message`, with `(document)` for the root. */
export function formatCredSpecProblem(problem: CredSpecProblem): string {
  return `${problem.path === "" ? "(document)" : problem.path}: ${problem.message}`;
}
