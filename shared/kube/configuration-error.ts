/** A start-up failure: the kubeconfig or settings cannot give a working client. Not an admission outcome. */
export class KubeConfigurationError extends Error {
  /** Every problem found, each a full sentence naming the setting or kubeconfig entry. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Kubernetes client configuration:\n- ${problems.join("\n- ")}`);
    this.name = "KubeConfigurationError";
    this.problems = problems;
  }
}
