import { describe, expect, it } from "vitest";
import type { ClusterRequest } from "../../../../cli/cluster.ts";
import { checkCrdAndCredSpecs } from "../../../../cli/doctor/credspecs.ts";
import { editJson, loadCredSpecFixture, REMOVE } from "../../../support/credspec-fixtures.ts";

const WELL_FORMED = loadCredSpecFixture("webapp1.json");

const crd = (served: string[], established = "True") => ({
  spec: { versions: ["v1", "v1alpha1"].map((name) => ({ name, served: served.includes(name) })) },
  status: { conditions: [{ type: "Established", status: established }] },
});

/** What the doctor finds where the CRD GET answers `status` and `body` and the credspecs listed are `items`. */
function check(items: unknown[], status = 200, body: unknown = crd(["v1", "v1alpha1"])) {
  const cluster = {
    request: ({ path }: ClusterRequest) =>
      Promise.resolve(
        path.includes("/customresourcedefinitions/")
          ? { status, body, warnings: [] }
          : { status: 200, body: { items }, warnings: [] },
      ),
  };
  return checkCrdAndCredSpecs(cluster);
}

/** The CRD findings, with no credspec. */
const checkCrd = async (status: number, body: unknown) =>
  (await check([], status, body)).findings.filter((f) => f.check === "crd");

/** The credspec findings, where the CRD is as shipped. */
async function checkCredSpecs(items: unknown[]) {
  const { findings, names } = await check(items);
  return { findings: findings.filter((f) => f.check !== "crd"), names };
}

describe("the CRD", () => {
  it("passes when Established and serving v1 and v1alpha1; fails when missing, not Established, or not serving v1alpha1", async () => {
    expect((await checkCrd(200, crd(["v1", "v1alpha1"]))).map((f) => f.status)).toEqual(["pass"]);
    expect((await checkCrd(404, {}))[0]?.message).toMatch(/gmsacredentialspecs\.windows\.k8s\.io is not installed/);
    expect((await checkCrd(200, crd(["v1", "v1alpha1"], "False")))[0]?.message).toMatch(/is not Established/);
    expect((await checkCrd(200, crd(["v1"])))[0]?.message).toMatch(/does not serve v1alpha1 \(serves v1\)/);
  });
});

describe("credspecs", () => {
  it("passes a well-formed credspec and lists it as one to probe with", async () => {
    const result = await checkCredSpecs([{ metadata: { name: "webapp01" }, credspec: WELL_FORMED }]);
    expect(result.findings.map((f) => f.status)).toEqual(["pass"]);
    expect(result.names).toEqual(["webapp01"]);
  });

  it("fails each problem naming the credspec and the field, never the value, and lists it after the well-formed", async () => {
    const credspec = editJson(
      editJson(WELL_FORMED, "DomainJoinConfig.Guid", "secret-looking-value"),
      "DomainJoinConfig.Sid",
      REMOVE,
    );
    const result = await checkCredSpecs([
      { metadata: { name: "bad" }, credspec },
      { metadata: { name: "good" }, credspec: WELL_FORMED },
    ]);
    expect(result.names).toEqual(["good", "bad"]);
    const messages = result.findings
      .filter((f) => f.check === "credspec/bad")
      .map((f) => `${f.status} ${f.check} ${f.message}`);
    expect(messages).toEqual([
      expect.stringMatching(
        /^fail credspec\/bad GMSACredentialSpec bad: credspec\.DomainJoinConfig\.Sid: is required/,
      ) as unknown,
      expect.stringMatching(
        /^fail credspec\/bad GMSACredentialSpec bad: credspec\.DomainJoinConfig\.Guid: must be a GUID/,
      ) as unknown,
    ]);
    expect(messages.join()).not.toContain("secret-looking-value");
  });

  it("fails a credspec without a credspec field, and one over 64 KiB", async () => {
    const big = editJson(WELL_FORMED, "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Name", "x".repeat(70_000));
    const result = await checkCredSpecs([
      { metadata: { name: "empty" } },
      { metadata: { name: "big" }, credspec: big },
    ]);
    expect(result.findings.map((f) => [f.check, f.status])).toEqual([
      ["credspec/empty", "fail"],
      ["credspec/big", "fail"],
    ]);
    expect(result.findings[1]?.message).toMatch(
      /bytes as compact JSON; a pod's gmsaCredentialSpec holds at most 65536/,
    );
  });

  it("warns about unknown fields (stored, so inlined into pods) and about no credspec at all", async () => {
    const extra = await checkCredSpecs([{ metadata: { name: "extra" }, credspec: { ...WELL_FORMED, Extra: 1 } }]);
    expect(extra.findings.map((f) => [f.status, f.message])).toEqual([
      [
        "warn",
        expect.stringMatching(
          /credspec\.Extra: is not a field of the credential spec schema; pods get it inlined/,
        ) as unknown,
      ],
    ]);
    expect((await checkCredSpecs([])).findings.map((f) => f.status)).toEqual(["warn"]);
  });
});
