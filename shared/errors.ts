/**
 * Every admission failure, jose-style: one base class with a stable `code`, one subclass per failure.
 * `status` travels as the AdmissionReview's `response.status.code` (the status-code table of docs/security.md);
 * `where` names the offending place so one denial can list every container at fault. Imports nothing.
 */

export type AdmissionErrorCode =
  | "ERR_INVALID_REVIEW"
  | "ERR_INVALID_CREDSPEC_NAME"
  | "ERR_CREDSPEC_NOT_FOUND"
  | "ERR_CREDSPEC_WITHOUT_CONTENTS"
  | "ERR_CREDSPEC_NOT_ALLOWED"
  | "ERR_CONTENTS_WITHOUT_NAME"
  | "ERR_CONTENTS_NOT_JSON"
  | "ERR_DUPLICATE_CREDSPEC_KEY"
  | "ERR_CONTENTS_MISMATCH"
  | "ERR_NAME_WITHOUT_CONTENTS"
  | "ERR_ANNOTATION_CONFLICT"
  | "ERR_UNKNOWN_CONTAINER"
  | "ERR_CONTENTS_TOO_LARGE"
  | "ERR_TOO_MANY_REFERENCES"
  | "ERR_GMSA_CHANGED"
  | "ERR_KUBE_API"
  | "ERR_DEADLINE_EXCEEDED"
  | "ERR_CREDENTIALS"
  | "ERR_INTERNAL";

/** Where a failure sits: a human label ("container \"web\"", "pod", "annotation \"k\"") and the credspec, if any. */
export interface Where {
  place: string;
  credSpecName?: string;
}

export interface AdmissionErrorOptions {
  where?: Where;
  cause?: unknown;
}

/** Base class; never thrown directly. */
export class AdmissionError extends Error {
  readonly code: AdmissionErrorCode = "ERR_INTERNAL";
  readonly status: number = 500;
  readonly where: Where | undefined;

  constructor(message: string, options: AdmissionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.where = options.where;
  }

  /**
   * The same failure told from further out: a new error of this error's class (so its code and status stay those
   * of the layer that failed), with the message `${context}: ${message}`, the given `where` (default none) and
   * this error as its cause.
   */
  withContext(context: string, where?: Where): this {
    // Every subclass keeps the base constructor, so its own constructor rebuilds it.
    const ErrorClass = this.constructor as new (message: string, options: AdmissionErrorOptions) => this;
    return new ErrorClass(`${context}: ${this.message}`, where === undefined ? { cause: this } : { where, cause: this });
  }
}

/** The AdmissionReview itself is malformed in a place we must read (400). */
export class InvalidReviewError extends AdmissionError {
  override readonly code = "ERR_INVALID_REVIEW";
  override readonly status = 400;
}

/** A credspec name that is not a DNS-1123 subdomain; refused before any API call (422). */
export class InvalidCredSpecNameError extends AdmissionError {
  override readonly code = "ERR_INVALID_CREDSPEC_NAME";
  override readonly status = 422;
}

/** The named GMSACredentialSpec does not exist (422; the Go reference says 404). */
export class CredSpecNotFoundError extends AdmissionError {
  override readonly code = "ERR_CREDSPEC_NOT_FOUND";
  override readonly status = 422;
}

/** The GMSACredentialSpec exists but has no `credspec` field (422; the Go reference says 417). */
export class CredSpecWithoutContentsError extends AdmissionError {
  override readonly code = "ERR_CREDSPEC_WITHOUT_CONTENTS";
  override readonly status = 422;
}

/** The pod's service account may not `use` the credspec (403). */
export class CredSpecNotAllowedError extends AdmissionError {
  override readonly code = "ERR_CREDSPEC_NOT_ALLOWED";
  override readonly status = 403;
}

/** `gmsaCredentialSpec` is set where no `gmsaCredentialSpecName` is (422). */
export class ContentsWithoutNameError extends AdmissionError {
  override readonly code = "ERR_CONTENTS_WITHOUT_NAME";
  override readonly status = 422;
}

/** `gmsaCredentialSpec` is not valid JSON (422). */
export class ContentsNotJsonError extends AdmissionError {
  override readonly code = "ERR_CONTENTS_NOT_JSON";
  override readonly status = 422;
}

/**
 * `gmsaCredentialSpec` (or the alpha contents annotation) writes one object key twice at some depth (422): JSON.parse
 * keeps the last, so the contents could compare equal to the credspec while the node reads the other.
 */
export class DuplicateCredSpecKeyError extends AdmissionError {
  override readonly code = "ERR_DUPLICATE_CREDSPEC_KEY";
  override readonly status = 422;
}

/** Inlined contents differ from the named resource (422). */
export class ContentsMismatchError extends AdmissionError {
  override readonly code = "ERR_CONTENTS_MISMATCH";
  override readonly status = 422;
}

/** A name whose contents were never inlined: expand did not run (422). */
export class NameWithoutContentsError extends AdmissionError {
  override readonly code = "ERR_NAME_WITHOUT_CONTENTS";
  override readonly status = 422;
}

/** An alpha annotation disagrees with the matching field (422). */
export class AnnotationConflictError extends AdmissionError {
  override readonly code = "ERR_ANNOTATION_CONFLICT";
  override readonly status = 422;
}

/** A container-level alpha annotation names a container the pod does not have (422). */
export class UnknownContainerError extends AdmissionError {
  override readonly code = "ERR_UNKNOWN_CONTAINER";
  override readonly status = 422;
}

/** Inlined contents would exceed the API server's limit for `gmsaCredentialSpec` (422). */
export class ContentsTooLargeError extends AdmissionError {
  override readonly code = "ERR_CONTENTS_TOO_LARGE";
  override readonly status = 422;
}

/** More GMSA references in one pod than a review may cost (422). */
export class TooManyReferencesError extends AdmissionError {
  override readonly code = "ERR_TOO_MANY_REFERENCES";
  override readonly status = 422;
}

/** A GMSA name or contents changed, appeared or disappeared on UPDATE (400; the Go reference says 403). */
export class GmsaChangedError extends AdmissionError {
  override readonly code = "ERR_GMSA_CHANGED";
  override readonly status = 400;
}

/** The API server failed, refused us or could not be reached: fail closed (500). */
export class KubeApiError extends AdmissionError {
  override readonly code = "ERR_KUBE_API";
  override readonly status = 500;
}

/** The review's deadline passed before the facts were in: fail closed (500). */
export class DeadlineExceededError extends AdmissionError {
  override readonly code = "ERR_DEADLINE_EXCEEDED";
  override readonly status = 500;
}

/** No credential for the API server could be had (exec plugin failed, token unreadable): fail closed (500). */
export class CredentialsError extends AdmissionError {
  override readonly code = "ERR_CREDENTIALS";
  override readonly status = 500;
}

/** Our own bug. The message sent out is generic; the cause is logged by request uid only. */
export class InternalError extends AdmissionError {
  override readonly code = "ERR_INTERNAL";
  override readonly status = 500;
}

/** Anything thrown that is not ours is our bug: fail closed with a generic InternalError (500). */
export function asAdmissionError(error: unknown): AdmissionError {
  return error instanceof AdmissionError ? error : new InternalError("internal error", { cause: error });
}

/** When errors of several kinds meet, the reply carries the most telling code: failure, then authorization. */
const STATUS_PRECEDENCE = [500, 403, 400, 422];

/** The status code a set of errors answers with (500 for none). */
export function pickStatus(errors: readonly AdmissionError[]): number {
  const codes = new Set(errors.map((e) => e.status));
  return STATUS_PRECEDENCE.find((code) => codes.has(code)) ?? errors[0]?.status ?? 500;
}
