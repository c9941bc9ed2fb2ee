/** What every doctor check returns, and the read-only view of the cluster the checks are given. */
import { listAll, type ClusterAnswer, type ClusterConnection, type ClusterRequest } from "../cluster.ts";

/** `pass` and `warn` keep the exit status 0; any `fail` makes it 1; `skip` says what could not be checked and why. */
export type FindingStatus = "pass" | "warn" | "fail" | "skip";

/** One line of the doctor's report. Messages never hold a secret (a path secret in a URL is masked). */
export interface Finding {
  /** The check family and subject, e.g. `webhooks/expand`, `credspec/webapp01`. */
  check: string;
  status: FindingStatus;
  /** What was found, naming the object and field. */
  message: string;
  /** How to fix it (fail and warn). */
  fix?: string;
  /** How long the check's own API call took, where that is the point (the end-to-end probes). */
  ms?: number;
}

export type { ClusterRequest };
/** The API server's answer; `body` is parsed JSON (or text), `warnings` the Warning headers' texts. */
export type ClusterResponse = ClusterAnswer;

/** The cluster as the doctor sees it (the CLI's connection): GETs, reviews and dry runs only. */
export type DoctorCluster = Pick<ClusterConnection, "request">;

/** Builds a finding; `fix` only when given. */
export function finding(check: string, status: FindingStatus, message: string, fix?: string): Finding {
  return fix === undefined ? { check, status, message } : { check, status, message, fix };
}

/** The `items` of every page of a list, or the error finding when the list could not be read. */
export async function listItems<T>(cluster: DoctorCluster, check: string, path: string): Promise<{ items: T[] } | { error: Finding }> {
  try {
    return { items: (await listAll(cluster, path, `GET ${path}`)) as T[] };
  } catch (error) {
    return { error: finding(check, "fail", (error as Error).message, readAccessFix) };
  }
}

/** The message of a Kubernetes Status body (or the start of a text body). */
export function statusMessage(body: unknown): string {
  if (typeof body === "string") return body.slice(0, 300);
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : JSON.stringify(body)?.slice(0, 300) ?? "";
}

const readAccessFix = "run doctor as a user with the read-only role in docs/doctor.md (RBAC for doctor)";
