import { describe, expect, it } from "vitest";
import { CredSpecNotFoundError, KubeApiError } from "../../../../shared/errors.ts";
import { errorAtPlaces } from "../../../../shared/policy/facts.ts";

describe("errorAtPlaces", () => {
  it("keeps the class, code and status and prefixes the places", () => {
    const cause = new CredSpecNotFoundError('GMSACredentialSpec "webapp1" not found');
    const error = errorAtPlaces(cause, ["pod", 'container "app"'], "webapp1");
    expect(error).toBeInstanceOf(CredSpecNotFoundError);
    expect([error.code, error.status]).toEqual(["ERR_CREDSPEC_NOT_FOUND", 422]);
    expect(error.message).toBe('pod, container "app": GMSACredentialSpec "webapp1" not found');
    expect(error.where).toEqual({ place: 'pod, container "app"', credSpecName: "webapp1" });
    expect(error.cause).toBe(cause);
  });

  it("keeps a KubeApiError a 500", () => {
    const error = errorAtPlaces(new KubeApiError("the API server answered 503"), ["pod"], "webapp1");
    expect([error.name, error.code, error.status]).toEqual(["KubeApiError", "ERR_KUBE_API", 500]);
  });
});
