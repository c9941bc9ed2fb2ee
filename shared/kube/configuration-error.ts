import { ConfigurationError } from "../configuration-error.ts";

/** A start-up failure: the kubeconfig or settings cannot give a working client. Not an admission outcome. */
export class KubeConfigurationError extends ConfigurationError {
  constructor(problems: readonly string[]) {
    super(problems, "Kubernetes client configuration");
  }
}
