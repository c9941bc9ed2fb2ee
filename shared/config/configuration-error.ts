/** A start-up failure: the configuration cannot give a working function. Not an admission outcome. */
export class ConfigurationError extends Error {
  /** Every problem found, each a full sentence naming the setting. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], heading = "configuration") {
    super(`${heading}:\n- ${problems.join("\n- ")}`);
    this.name = new.target.name;
    this.problems = problems;
  }
}

/** A start-up failure: the kubeconfig or settings cannot give a working client. Not an admission outcome. */
export class KubeConfigurationError extends ConfigurationError {
  constructor(problems: readonly string[]) {
    super(problems, "Kubernetes client configuration");
  }
}
