import { describe, expect, it } from "vitest";
import * as errors from "../../../shared/errors.ts";

const expected: [new (message: string, options?: errors.AdmissionErrorOptions) => errors.AdmissionError, string, number][] = [
  [errors.InvalidReviewError, "ERR_INVALID_REVIEW", 400],
  [errors.InvalidCredSpecNameError, "ERR_INVALID_CREDSPEC_NAME", 422],
  [errors.CredSpecNotFoundError, "ERR_CREDSPEC_NOT_FOUND", 422],
  [errors.CredSpecWithoutContentsError, "ERR_CREDSPEC_WITHOUT_CONTENTS", 422],
  [errors.CredSpecNotAllowedError, "ERR_CREDSPEC_NOT_ALLOWED", 403],
  [errors.ContentsWithoutNameError, "ERR_CONTENTS_WITHOUT_NAME", 422],
  [errors.ContentsNotJsonError, "ERR_CONTENTS_NOT_JSON", 422],
  [errors.ContentsMismatchError, "ERR_CONTENTS_MISMATCH", 422],
  [errors.NameWithoutContentsError, "ERR_NAME_WITHOUT_CONTENTS", 422],
  [errors.AnnotationConflictError, "ERR_ANNOTATION_CONFLICT", 422],
  [errors.UnknownContainerError, "ERR_UNKNOWN_CONTAINER", 422],
  [errors.ContentsTooLargeError, "ERR_CONTENTS_TOO_LARGE", 422],
  [errors.TooManyReferencesError, "ERR_TOO_MANY_REFERENCES", 422],
  [errors.GmsaChangedError, "ERR_GMSA_CHANGED", 400],
  [errors.KubeApiError, "ERR_KUBE_API", 500],
  [errors.DeadlineExceededError, "ERR_DEADLINE_EXCEEDED", 500],
  [errors.CredentialsError, "ERR_CREDENTIALS", 500],
  [errors.InternalError, "ERR_INTERNAL", 500],
];

describe("AdmissionError subclasses", () => {
  it.each(expected)("%o has its code and status per DESIGN.md section 4", (ErrorClass, code, status) => {
    const cause = new Error("root");
    const error = new ErrorClass("message", { where: { place: "pod", credSpecName: "webapp1" }, cause });
    expect(error).toBeInstanceOf(errors.AdmissionError);
    expect([error.name, error.code, error.status, error.message]).toEqual([ErrorClass.name, code, status, "message"]);
    expect(error.where).toEqual({ place: "pod", credSpecName: "webapp1" });
    expect(error.cause).toBe(cause);
  });

  it("has no cause and no where when given none", () => {
    const error = new errors.KubeApiError("x");
    expect(error.where).toBeUndefined();
    expect("cause" in error).toBe(false);
  });
});
