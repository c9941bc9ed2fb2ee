/** `gmsa-webhooks --help`. */
export const MAIN_USAGE = `Usage: gmsa-webhooks <command> [options]

Commands:
  credspec   turn New-CredentialSpec JSON into a GMSACredentialSpec and the RBAC to use it

Run 'gmsa-webhooks <command> --help' for a command's options.
`;

/** `gmsa-webhooks credspec --help`. */
export const CREDSPEC_USAGE = `Usage: gmsa-webhooks credspec [options] <file | ->

Checks the credential spec JSON that Windows' New-CredentialSpec writes and prints,
for kubectl apply -f -, a GMSACredentialSpec holding it, a ClusterRole that allows
"use" of it, and a RoleBinding for each --service-account.

Arguments:
  <file>                        credential spec JSON (UTF-8 or UTF-16 with BOM); - reads stdin

Options:
  --name <name>                 GMSACredentialSpec name, a DNS-1123 subdomain
                                (default: the first gMSA account name, lowercased)
  --role-name <name>            ClusterRole name (default: <name>-use)
  --service-account <ns:name>   bind the ClusterRole to service account <name> with a
                                RoleBinding in namespace <ns>; repeatable
  -o, --output yaml|json        output format (default: yaml; json prints a v1 List)
  -h, --help                    show this help

Every problem in the credential spec is reported, on stderr, by its JSON path.

Exit status: 0 printed, 1 invalid credential spec, 2 usage error or unreadable file.

Example:
  npx gmsa-webhooks credspec webapp1.json --service-account web:webapp1 | kubectl apply -f -
`;
