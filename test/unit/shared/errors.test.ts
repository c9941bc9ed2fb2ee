import { describe, expect, it } from "vitest";
import * as errors from "../../../shared/errors.ts";

describe("AdmissionError", () => {
  it.each([
    ["ERR_INVALID_REVIEW", 400],
    ["ERR_INVALID_CREDSPEC_NAME", 422],
    ["ERR_CREDSPEC_NOT_FOUND", 422],
    ["ERR_CREDSPEC_WITHOUT_CONTENTS", 422],
    ["ERR_CREDSPEC_NOT_ALLOWED", 403],
    ["ERR_CONTENTS_MISMATCH", 422],
    ["ERR_GMSA_CHANGED", 400],
    ["ERR_CONTENTS_WITHOUT_NAME", 422],
    ["ERR_CONTENTS_NOT_JSON", 422],
    ["ERR_DUPLICATE_CREDSPEC_KEY", 422],
    ["ERR_NAME_WITHOUT_CONTENTS", 422],
    ["ERR_ANNOTATION_CONFLICT", 422],
    ["ERR_UNKNOWN_CONTAINER", 422],
    ["ERR_CONTENTS_TOO_LARGE", 422],
    ["ERR_TOO_MANY_REFERENCES", 422],
    ["ERR_KUBE_API", 500],
    ["ERR_DEADLINE_EXCEEDED", 500],
    ["ERR_CREDENTIALS", 500],
    ["ERR_INTERNAL", 500],
  ] as const)("carries %s with its status %d per docs/security.md (Status codes)", (code, status) => {
    const cause = new Error("root");
    const error = new errors.AdmissionError("message", {
      code,
      where: { place: "pod", credSpecName: "webapp1" },
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.status, error.message]).toEqual(["AdmissionError", code, status, "message"]);
    expect(error.where).toEqual({ place: "pod", credSpecName: "webapp1" });
    expect(error.cause).toBe(cause);
    expect(error.withContext("outer")).toMatchObject({
      name: "AdmissionError",
      code,
      status,
      message: "outer: message",
    });
  });

  it("has no cause and no where when given none", () => {
    const error = new errors.AdmissionError("x", { code: "ERR_KUBE_API" });
    expect(error.where).toBeUndefined();
    expect("cause" in error).toBe(false);
  });
});

describe("withContext", () => {
  it("keeps the code and status, prefixes the message, and chains the original as cause", () => {
    const original = new errors.AdmissionError("not found", {
      code: "ERR_CREDSPEC_NOT_FOUND",
      where: { place: "pod" },
    });
    const placed = original.withContext('container "web"', "webapp1");
    expect([placed.code, placed.status, placed.message]).toEqual([
      "ERR_CREDSPEC_NOT_FOUND",
      422,
      'container "web": not found',
    ]);
    expect(placed.where).toEqual({ place: 'container "web"', credSpecName: "webapp1" });
    expect(placed.cause).toBe(original);
    const unplaced = original.withContext("reading x");
    expect([unplaced.message, unplaced.where, unplaced.cause]).toEqual(["reading x: not found", undefined, original]);
  });
});

describe("asAdmissionError", () => {
  it("keeps ours and wraps anything else as a generic ERR_INTERNAL", () => {
    const ours = new errors.AdmissionError("x", { code: "ERR_CREDSPEC_NOT_FOUND" });
    expect(errors.asAdmissionError(ours)).toBe(ours);
    const wrapped = errors.asAdmissionError(new TypeError("secret detail"));
    expect([wrapped.code, wrapped.status, wrapped.message]).toEqual(["ERR_INTERNAL", 500, "internal error"]);
    expect(wrapped.cause).toBeInstanceOf(TypeError);
    expect(errors.asAdmissionError("a string").code).toBe("ERR_INTERNAL");
  });
});

describe("createRefusal", () => {
  it("places a refusal, naming the credspec only when there is one", () => {
    const named = errors.createRefusal("ERR_CREDSPEC_NOT_ALLOWED", "m", "pod", "webapp1");
    expect([named.name, named.code, named.status, named.message]).toEqual([
      "AdmissionError",
      "ERR_CREDSPEC_NOT_ALLOWED",
      403,
      "m",
    ]);
    expect(named.where).toStrictEqual({ place: "pod", credSpecName: "webapp1" });
    expect(errors.createRefusal("ERR_GMSA_CHANGED", "m", 'container "web"').where).toStrictEqual({
      place: 'container "web"',
    });
  });
});
