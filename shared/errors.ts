/**
 * Every admission failure, jose-style: one `AdmissionError` with a stable `code`, its `status` (docs/security.md,
 * Status codes) and `where` it sits. The GMSA rules' refusals are `createRefusal(code, …)`.
 */
const STATUS = {
  ERR_INVALID_REVIEW: 400, // the AdmissionReview is malformed in a place we must read
  ERR_INVALID_CREDSPEC_NAME: 422, // not a DNS-1123 subdomain: refused before any API call
  ERR_CREDSPEC_NOT_FOUND: 422, // the named GMSACredentialSpec does not exist; the Go reference says 404
  ERR_CREDSPEC_WITHOUT_CONTENTS: 422, // the GMSACredentialSpec has no `credspec` field; the Go reference says 417
  ERR_CREDSPEC_NOT_ALLOWED: 403, // a subject may not `use` the credspec
  ERR_CONTENTS_WITHOUT_NAME: 422, // `gmsaCredentialSpec` is set where no `gmsaCredentialSpecName` is
  ERR_CONTENTS_NOT_JSON: 422,
  ERR_DUPLICATE_CREDSPEC_KEY: 422, // JSON.parse keeps the last of a repeated key, the node may read the other
  ERR_CONTENTS_MISMATCH: 422, // inlined contents differ from the named resource
  ERR_NAME_WITHOUT_CONTENTS: 422, // expand did not run
  ERR_ANNOTATION_CONFLICT: 422, // an alpha annotation disagrees with its field
  ERR_UNKNOWN_CONTAINER: 422, // an alpha annotation names a container the pod does not have
  ERR_CONTENTS_TOO_LARGE: 422, // over the API server's limit for `gmsaCredentialSpec`, or for a whole pod
  ERR_TOO_MANY_REFERENCES: 422, // more distinct credspecs in one pod than a review may cost
  ERR_GMSA_CHANGED: 400, // on UPDATE; the Go reference says 403
  ERR_KUBE_API: 500, // the API server failed, refused us or could not be reached: fail closed
  ERR_DEADLINE_EXCEEDED: 500, // the review's deadline passed before the facts were in: fail closed
  ERR_CREDENTIALS: 500, // no credential for the API server (exec plugin failed, token unreadable): fail closed
  ERR_INTERNAL: 500, // our own bug: the message sent out is generic, the cause is logged by request uid only
} as const;

/** The stable code of a failure; `switch (error.code)` narrows. */
export type AdmissionErrorCode = keyof typeof STATUS;

/** Where a failure sits: a human label ("container \"web\"", "pod", "annotation \"k\"") and the credspec, if any. */
export interface Where {
  place: string;
  credSpecName?: string;
}

/** An admission failure: its `code` decides its `status`; tell failures apart by `code`, never by message. */
export class AdmissionError extends Error {
  override readonly name = "AdmissionError";
  readonly code: AdmissionErrorCode;
  readonly status: number;
  readonly where: Where | undefined;

  constructor(message: string, options: { code: AdmissionErrorCode; where?: Where; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.status = STATUS[this.code];
    this.where = options.where;
  }

  /** The same failure (code, status) told from further out, caused by this; with `credSpecName`, at place `context`. */
  withContext(context: string, credSpecName?: string): AdmissionError {
    const where = credSpecName === undefined ? {} : { where: { place: context, credSpecName } };
    return new AdmissionError(`${context}: ${this.message}`, { code: this.code, ...where, cause: this });
  }
}

/** A GMSA rule's refusal with its `code`, at `place`, naming the credspec when there is one. */
export function createRefusal(
  code: AdmissionErrorCode,
  message: string,
  place: string,
  credSpecName?: string,
): AdmissionError {
  return new AdmissionError(message, { code, where: credSpecName === undefined ? { place } : { place, credSpecName } });
}

/** Anything thrown that is not ours is our bug: fail closed with a generic ERR_INTERNAL (500). */
export function asAdmissionError(error: unknown): AdmissionError {
  return error instanceof AdmissionError
    ? error
    : new AdmissionError("internal error", { code: "ERR_INTERNAL", cause: error });
}

/** When errors of several kinds meet, the reply carries the most telling code: failure, then authorization. */
const STATUS_PRECEDENCE = [500, 403, 400, 422];
/** The status code a set of errors answers with (500 for none). */
export function pickStatus(errors: readonly AdmissionError[]): number {
  const codes = new Set(errors.map((e) => e.status));
  return STATUS_PRECEDENCE.find((code) => codes.has(code)) ?? errors[0]?.status ?? 500;
}

/**
 * An error's own `code` (`ENOENT`, `ERR_OSSL_...`), else its cause's (undici puts a fetch failure's there), else its
 * name; never its message, which may quote a header or a file.
 */
export function shortErrorCode(error: unknown): string {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  if (typeof code === "string") return code;
  if (typeof cause?.code === "string") return cause.code;
  return error instanceof Error ? error.name : "unknown error";
}
