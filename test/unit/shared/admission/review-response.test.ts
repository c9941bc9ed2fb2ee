import { describe, expect, it } from "vitest";
import {
  buildAdmissionResponse,
  MAX_MESSAGE_LENGTH,
  MAX_WARNING_LENGTH,
  MAX_WARNINGS_TOTAL,
  type Decision,
} from "../../../../shared/admission/review.ts";
import { AdmissionError, createRefusal, pickStatus } from "../../../../shared/errors.ts";
import { decodePatch } from "../../../support/reviews.ts";

const uid = "705ab4f5-6393-11e8-b7cc-42010a800002";
const respond = (outcome: Decision) => buildAdmissionResponse("admission.k8s.io/v1", uid, outcome).response;

describe("buildAdmissionResponse", () => {
  it.each(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const)(
    "answers in %s with the uid echoed",
    (apiVersion) => {
      expect(buildAdmissionResponse(apiVersion, uid, { allowed: true })).toEqual({
        apiVersion,
        kind: "AdmissionReview",
        response: { uid, allowed: true },
      });
    },
  );

  it("tells a credential failure as a generic 500 naming the uid, never its detail (plugin stderr, paths, ARNs)", () => {
    const detail =
      'exec plugin "/opt/bin/aws" exited with code 255: arn:aws:iam::123456789012:role/gmsa, token file /var/run/secrets/t';
    const error = new AdmissionError(detail, { code: "ERR_CREDENTIALS" })
      .withContext('reading GMSACredentialSpec "webapp1"')
      .withContext("pod", "webapp1");
    const status = respond({ allowed: false, errors: [error] }).status;
    expect(status).toMatchObject({ code: 500, reason: "InternalError" });
    expect(status?.message).toBe(
      `pod: the GMSA webhook could not authenticate to the API server while checking credspec "webapp1", so it fails closed (its log has the cause under request uid ${uid})`,
    );
    for (const leak of ["/opt/bin/aws", "123456789012", "/var/run", "exited"])
      expect(status?.message).not.toContain(leak);
  });

  it("carries a non-empty patch as base64 JSON of UTF-8 with patchType JSONPatch, one past String.fromCharCode's argument limit too", () => {
    for (const value of ["é", "x".repeat(300_000)]) {
      const patch = [{ op: "add" as const, path: "/spec/hostname", value }];
      const reply = buildAdmissionResponse("admission.k8s.io/v1", uid, { allowed: true, patch });
      expect(reply.response.patchType).toBe("JSONPatch");
      expect(decodePatch(reply)).toEqual(patch);
    }
  });

  it("denies with status Failure, the code, its reason and every message", () => {
    const reply = respond({
      allowed: false,
      errors: [
        createRefusal("ERR_CREDSPEC_NOT_ALLOWED", 'pod: may not use "a"', "pod"),
        createRefusal("ERR_CREDSPEC_NOT_ALLOWED", 'container "app": may not use "b"', "pod"),
      ],
    });
    expect(reply).toEqual({
      uid,
      allowed: false,
      status: {
        status: "Failure",
        code: 403,
        reason: "Forbidden",
        message: 'pod: may not use "a"; container "app": may not use "b"',
      },
    });
  });

  it("replaces the message of our own bugs with a generic text", () => {
    const reply = respond({
      allowed: false,
      errors: [new AdmissionError("TypeError: cannot read secret of undefined", { code: "ERR_INTERNAL" })],
    });
    expect(reply.status).toMatchObject({ code: 500, reason: "InternalError" });
    expect(reply.status?.message).not.toContain("secret");
  });

  it("caps the message and says how many were left out", () => {
    const errors = Array.from(
      { length: 100 },
      (_, i) =>
        new AdmissionError(`container "c${i}": GMSACredentialSpec "${"x".repeat(50)}" not found`, {
          code: "ERR_CREDSPEC_NOT_FOUND",
        }),
    );
    const message = respond({ allowed: false, errors }).status?.message ?? "";
    expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(message).toMatch(/… and \d+ more$/);
    expect(message).toContain('container "c0"');
  });

  it("keeps the start of a single message longer than the cap, so it still names the place", () => {
    const labels = Array.from({ length: 200 }, (_, i) => `container "container-${i}"`).join(", ");
    const long = new AdmissionError(`${labels}: GMSACredentialSpec "webapp1" not found`, {
      code: "ERR_CREDSPEC_NOT_FOUND",
    });
    const message = respond({ allowed: false, errors: [long] }).status?.message ?? "";
    expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(message).toContain('container "container-0"');
    expect(message).not.toContain("more");
    const two = respond({ allowed: false, errors: [long, long] }).status?.message ?? "";
    expect(two.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(two).toMatch(/^container "container-0".*… and 1 more$/);
  });

  it("caps each warning at 256 characters and all of them at 4 KiB", () => {
    const warnings = Array.from({ length: 40 }, (_, i) => `${i}:${"w".repeat(400)}`);
    const out = respond({ allowed: true, warnings }).warnings ?? [];
    expect(out.length).toBeGreaterThan(0);
    for (const w of out) expect(w.length).toBeLessThanOrEqual(MAX_WARNING_LENGTH);
    expect(out.join("").length).toBeLessThanOrEqual(MAX_WARNINGS_TOTAL);
    expect(out[0]?.startsWith("0:")).toBe(true);
    expect(out.length).toBe(Math.floor(MAX_WARNINGS_TOTAL / MAX_WARNING_LENGTH));
  });

  it("leaves out an empty patch and no warnings, keeps warnings on denials, and denies without errors with a 500", () => {
    const reply = respond({ allowed: true, patch: [], warnings: [] });
    for (const field of ["patch", "patchType", "warnings"]) expect(reply).not.toHaveProperty(field);
    const denied = respond({
      allowed: false,
      errors: [new AdmissionError("x", { code: "ERR_KUBE_API" })],
      warnings: ["w"],
    });
    expect(denied.warnings).toEqual(["w"]);
    expect(respond({ allowed: false, errors: [] }).status?.code).toBe(500);
  });
});

describe("pickStatus", () => {
  const e500 = new AdmissionError("api", { code: "ERR_KUBE_API" });
  const e403 = createRefusal("ERR_CREDSPEC_NOT_ALLOWED", "rbac", "pod");
  const e400 = createRefusal("ERR_GMSA_CHANGED", "changed", "pod");
  const e422 = createRefusal("ERR_CONTENTS_MISMATCH", "mismatch", "pod");
  it.each([
    [[e422, e400, e403, e500], 500],
    [[e422, e400], 400],
    [[e400, e403], 403],
  ] as [AdmissionError[], number][])("picks by precedence 500 > 403 > 400 > 422 (%#)", (errors, code) => {
    expect(pickStatus(errors)).toBe(code);
  });
});
