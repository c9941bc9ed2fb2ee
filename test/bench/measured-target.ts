/** A webhook server process the bench can load and measure (ours, or the Go reference given by GMSA_REF_BIN). */
import type { FunctionName } from "../../shared/config/index.ts";

export interface MeasuredTarget {
  /** Shown in the tables, e.g. "gmsa-webhooks node" or "windows-gmsa (Go)". */
  server: string;
  fn: FunctionName;
  /** The process whose RSS and CPU time are read from /proc. */
  pid: number;
  /** Full https URL an AdmissionReview is POSTed to. */
  url: string;
  /** Extra request headers (our bearer caller auth; none for the reference). */
  headers: Record<string, string>;
  /** PEM of the CA that signed the server's certificate. */
  ca: string;
}
