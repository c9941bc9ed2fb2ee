/**
 * Every admission failure, jose-style: a stable `code`, its `status` (docs/security.md, Status codes) and `where` it
 * sits. Failures raised outside shared/policy have a class each; the GMSA rules' refusals are `createRefusal(code, …)`.
 */
const STATUS = {
  ERR_INVALID_REVIEW: 400,
  ERR_INVALID_CREDSPEC_NAME: 422,
  ERR_CREDSPEC_NOT_FOUND: 422, // the Go reference says 404
  ERR_CREDSPEC_WITHOUT_CONTENTS: 422, // the Go reference says 417
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
  ERR_KUBE_API: 500,
  ERR_DEADLINE_EXCEEDED: 500,
  ERR_CREDENTIALS: 500,
  ERR_INTERNAL: 500,
} as const;

/** The stable code of a failure; `switch (error.code)` narrows. */
export type AdmissionErrorCode = keyof typeof STATUS;

/** Where a failure sits: a human label ("container \"web\"", "pod", "annotation \"k\"") and the credspec, if any. */
export interface Where {
  place: string;
  credSpecName?: string;
}

export interface AdmissionErrorOptions {
  /** The failure, for the base class (default ERR_INTERNAL); each subclass fixes its own. */
  code?: AdmissionErrorCode;
  where?: Where;
  cause?: unknown;
}

/** Base class: thrown for the refusals without a class of their own, with their `code`. */
export class AdmissionError extends Error {
  readonly code: AdmissionErrorCode;
  readonly status: number;
  readonly where: Where | undefined;

  constructor(message: string, options: AdmissionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code ?? "ERR_INTERNAL";
    this.status = STATUS[this.code];
    this.where = options.where;
  }

  /** The same failure (class, code, status) told from further out, caused by this; with `credSpecName`, at place `context`. */
  withContext(context: string, credSpecName?: string): this {
    // Every failure class keeps the base constructor, so its own constructor rebuilds it.
    const ErrorClass = this.constructor as new (message: string, options: AdmissionErrorOptions) => this;
    const where = credSpecName === undefined ? {} : { where: { place: context, credSpecName } };
    return new ErrorClass(`${context}: ${this.message}`, { code: this.code, ...where, cause: this });
  }
}

/** The base of one failure's class: `code`, and its status from the table. */
function failure<C extends AdmissionErrorCode>(code: C) {
  return class extends AdmissionError {
    override readonly code: C = code;
    override readonly status: number = STATUS[code];
  };
}

/** The AdmissionReview itself is malformed in a place we must read (400). */
export class InvalidReviewError extends failure("ERR_INVALID_REVIEW") {}
/** A credspec name that is not a DNS-1123 subdomain; refused before any API call (422). */
export class InvalidCredSpecNameError extends failure("ERR_INVALID_CREDSPEC_NAME") {}
/** The named GMSACredentialSpec does not exist (422). */
export class CredSpecNotFoundError extends failure("ERR_CREDSPEC_NOT_FOUND") {}
/** The GMSACredentialSpec exists but has no `credspec` field (422). */
export class CredSpecWithoutContentsError extends failure("ERR_CREDSPEC_WITHOUT_CONTENTS") {}
/** The API server failed, refused us or could not be reached: fail closed (500). */
export class KubeApiError extends failure("ERR_KUBE_API") {}
/** The review's deadline passed before the facts were in: fail closed (500). */
export class DeadlineExceededError extends failure("ERR_DEADLINE_EXCEEDED") {}
/** No credential for the API server could be had (exec plugin failed, token unreadable): fail closed (500). */
export class CredentialsError extends failure("ERR_CREDENTIALS") {}
/** Our own bug. The message sent out is generic; the cause is logged by request uid only. */
export class InternalError extends failure("ERR_INTERNAL") {}

/** A GMSA rule's refusal with its `code`, at `place`, naming the credspec when there is one. */
export function createRefusal(code: AdmissionErrorCode, message: string, place: string, credSpecName?: string): AdmissionError {
  return new AdmissionError(message, { code, where: credSpecName === undefined ? { place } : { place, credSpecName } });
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
