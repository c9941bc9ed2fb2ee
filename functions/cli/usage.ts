/** `gmsa-webhooks --help` (as `kubectl gmsa --help`, the program's name as invoked). */
export const MAIN_USAGE = `Usage: gmsa-webhooks <command> [options]

Commands:
  credspec      turn New-CredentialSpec JSON into a GMSACredentialSpec and the RBAC to use it
  token         print an ExecCredential with an EKS, AKS or GKE token (a kubeconfig exec plugin)

Cluster commands (read-only: GETs, access reviews and dry runs; docs/kubectl-gmsa.md):
  doctor        check that an install works: one line per check, what is wrong, how to fix it
  who-can-use   the service accounts that may use a GMSACredentialSpec
  explain       what the webhooks would do with a pod, and why

Run 'gmsa-webhooks <command> --help' for a command's options.
Installed as kubectl-gmsa on PATH, this is 'kubectl gmsa'.
`;

/** The global flags of every cluster command, for their usage texts. */
export const CLUSTER_FLAGS_USAGE = `Cluster flags (as kubectl's):
  --kubeconfig <file>     the kubeconfig (default: KUBECONFIG, a path list merged as
                          kubectl merges it, else ~/.kube/config, else in-cluster)
  --context <name>        the kubeconfig context (default: current-context)
  -n, --namespace <ns>    the namespace (default: the context's, else "default")
  --as <user>             impersonate this user, as kubectl does (access reviews
                          are still sent as you: they ask about someone else)
  --as-group <group>      impersonate this group too; repeatable; needs --as
  -o, --output json|yaml  print for scripts (default: text; colour only on a terminal
                          with NO_COLOR unset)
  -h, --help              show this help

Exit status: 0 all well, 1 something wrong (a finding, a denial, an unreachable
cluster), 2 usage error. Tokens are never printed; a path in the server URL is masked.
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

/** `gmsa-webhooks token --help`. */
export const TOKEN_USAGE = `Usage: gmsa-webhooks token <eks | aks | gke> [options]

A kubeconfig exec plugin without the clouds' helper binaries: prints, for kubectl
or the webhooks, an ExecCredential (client.authentication.k8s.io/v1, or the version
KUBERNETES_EXEC_INFO asks for) holding a token for the cluster.

Providers:
  eks   a k8s-aws-v1. token (a presigned sts:GetCallerIdentity URL), valid 14 minutes
        from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (optional)
        and AWS_REGION or AWS_DEFAULT_REGION; no profiles, SSO or instance metadata
  aks   an Entra ID token for the AKS server application from the App Service /
        Azure Functions managed identity endpoint (IDENTITY_ENDPOINT, IDENTITY_HEADER)
  gke   the service account's access token from the metadata server
        (metadata.google.internal, or GCE_METADATA_HOST; GKE_SERVICE_ACCOUNT, else default)

The environment is read as the functions read CLOUD_TOKEN's variables
(docs/configuration.md); a flag given replaces the variable it stands for. aks and gke
give up on the endpoint after 5 seconds.

Options:
  --cluster <name>      eks: the EKS cluster name (required; EKS_CLUSTER_NAME)
  --region <region>     eks: the STS region (EKS_REGION; default: AWS_REGION, then AWS_DEFAULT_REGION)
  --client-id <id>      aks: a user-assigned identity's client id (AKS_CLIENT_ID; default:
                        AZURE_CLIENT_ID, else the system-assigned identity)
  --server-id <id>      aks: the token's audience (AKS_SERVER_ID; default:
                        6dae42f8-4368-4678-94ff-3960e28e3630)
  -h, --help            show this help

Exit status: 0 printed, 1 no credentials or the cloud refused, 2 usage error.
Errors go to stderr and never show a key or token.

Example kubeconfig user:
  exec:
    apiVersion: client.authentication.k8s.io/v1
    command: npx
    args: [gmsa-webhooks, token, eks, --cluster, my-cluster]
    interactiveMode: Never
`;

/** `gmsa-webhooks who-can-use --help`. */
export const WHO_CAN_USE_USAGE = `Usage: gmsa-webhooks who-can-use <credspec> [-n <namespace> | -A] [cluster flags]

Lists the service accounts that may "use" the GMSACredentialSpec <credspec>: every
service account of the namespace (or of all namespaces, -A) is asked of the API
server with the LocalSubjectAccessReview the authorize webhook sends. The answer
holds for every authorizer the cluster runs (RBAC, webhook authorizers, ...), unlike
reading Roles and bindings by hand.

Options:
  -A, --all-namespaces    ask about the service accounts of every namespace

${CLUSTER_FLAGS_USAGE}
Output: one line per service account that may use it, with the authorizer's reason;
-o json|yaml prints a list of {namespace, name, reason}. An unknown credspec exits 1.

Example:
  kubectl gmsa who-can-use webapp1 -n web
`;

/** `gmsa-webhooks explain --help`. */
export const EXPLAIN_USAGE = `Usage: gmsa-webhooks explain -f <pod.yaml | -> [--as <user> [--as-group <group>]...] [cluster flags]

Explains what the GMSA webhooks would do with a Pod, without creating it. For each
GMSACredentialSpec the pod names (pod, containers, init and ephemeral containers,
alpha annotations):
  - whether the pod's service account may "use" it, and whether the person may
    (--as, else you): the access reviews the authorize webhook sends;
  - what the expand webhook would inline (the credspec's contents; PluginInput hidden).
Then the webhooks' verdict: a server-side dry run (dryRun=All) of the create, as the
person (impersonated with --as), with the API server's exact message and warnings.

Options:
  -f, --filename <file>   the Pod, YAML or JSON; - reads stdin

${CLUSTER_FLAGS_USAGE}
Exit status here: 0 the dry run admits the pod, 1 it is refused (or a call failed).
The access reviews are sent as your kubeconfig user: they ask about someone else.

Example:
  kubectl gmsa explain -f pod.yaml --as jane@contoso.com
`;
