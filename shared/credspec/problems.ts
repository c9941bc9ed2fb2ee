/**
 * One finding about a credential spec document. `path` is a JSON path into the document in the form
 * `ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Scope` ("" for the document itself). Messages name
 * fields and expected forms, never the values found: `HostAccountConfig.PluginInput` may hold a secret store
 * reference or credentials, and the same rule for every field keeps that guarantee simple to check.
 */
export interface CredSpecProblem {
  path: string;
  message: string;
}

/** Renders a problem as one line, `path: message`, with `(document)` for the root. */
export function formatCredSpecProblem(problem: CredSpecProblem): string {
  return `${problem.path === "" ? "(document)" : problem.path}: ${problem.message}`;
}
