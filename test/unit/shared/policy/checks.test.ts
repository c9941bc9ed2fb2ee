import { describe, expect, it } from "vitest";
import type { Pod } from "../../../../shared/admission/review.ts";
import {
  checkContentsShape,
  checkNames,
  distinctNames,
  listRunAsUserWarnings as listWarnings,
  MAX_CREDSPECS_PER_POD,
  truncate,
} from "../../../../shared/policy/checks.ts";
import { readPodGmsa, type GmsaReference } from "../../../../shared/policy/pod-gmsa.ts";
import { buildPod, PLACES, podWithGmsaAt } from "../../../support/pods.ts";

const listRunAsUserWarnings = (pod: Pod) => listWarnings(readPodGmsa(pod).places);

function ref(label: string, name: string | undefined, contents: string | undefined): GmsaReference {
  return { label, name, contents };
}

describe("checkNames and checkContentsShape", () => {
  const dup = '{"DomainJoinConfig":{"Sid":"S-1","Sid":"S-2"}}';
  it.each(
    PLACES.flatMap(({ label }) =>
      (
        [
          [checkNames, "Web_App", undefined, "ERR_INVALID_CREDSPEC_NAME", ['"Web_App"'], []],
          [checkContentsShape, undefined, "{}", "ERR_CONTENTS_WITHOUT_NAME", [], []],
          [checkContentsShape, "webapp1", "{oops", "ERR_CONTENTS_NOT_JSON", ['"webapp1"'], ["{oops"]],
          [checkContentsShape, "webapp1", dup, "ERR_DUPLICATE_CREDSPEC_KEY", ['"DomainJoinConfig.Sid"'], ["S-2"]],
          [checkContentsShape, "webapp1", undefined, "ERR_NAME_WITHOUT_CONTENTS", [], []],
        ] as const
      ).map(([check, ...rest]) => [label, check.name, ...rest, check] as const),
    ),
  )(
    "refuses on the %s: %s of name %j, contents %j, is %s (422), naming the place",
    (label, _fn, name, contents, code, said, unsaid, check) => {
      const errors = check([ref(label, name, contents)]);
      expect(errors.map((e) => [e.code, e.status])).toEqual([[code, 422]]);
      for (const text of [label, ...said]) expect(errors[0]?.message).toContain(text);
      for (const text of unsaid) expect(errors[0]?.message).not.toContain(text);
      const credSpecName = check === checkContentsShape ? name : undefined;
      expect(errors[0]?.where).toEqual({ place: label, ...(credSpecName === undefined ? {} : { credSpecName }) });
    },
  );

  it("refuses an empty name and keeps long names short in the message", () => {
    const errors = checkNames([ref("pod", "", undefined), ref('container "app"', "X".repeat(1000), undefined)]);
    expect(errors).toHaveLength(2);
    expect(errors[1]!.message.length).toBeLessThan(200);
  });

  it("lets valid names and references without a name through", () => {
    expect(checkNames([ref("pod", "webapp1", undefined), ref("pod", undefined, "{}")])).toEqual([]);
  });

  it("counts escaped and plain spellings of one key as a repeat", () => {
    expect(checkContentsShape([ref("pod", "webapp1", '{"a\\u0062":1,"ab":2}')]).map((e) => e.code)).toEqual([
      "ERR_DUPLICATE_CREDSPEC_KEY",
    ]);
  });

  it("accepts a name with JSON contents", () => {
    expect(checkContentsShape([ref("pod", "webapp1", "{}")])).toEqual([]);
  });

  it("gives each text its own verdict", () => {
    expect(checkContentsShape([ref("pod", "webapp1", '{"n":1}')])).toEqual([]);
    expect(checkContentsShape([ref("pod", "webapp1", '{"n":1,"n":0}')]).map((e) => e.code)).toEqual([
      "ERR_DUPLICATE_CREDSPEC_KEY",
    ]);
    expect(checkContentsShape([ref("pod", "webapp1", '{"n":1')]).map((e) => e.code)).toEqual(["ERR_CONTENTS_NOT_JSON"]);
  });
});

describe("checkNames: how many", () => {
  it(`accepts up to ${MAX_CREDSPECS_PER_POD} distinct names and refuses more (422)`, () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => ref(`container "c${i}"`, `name-${i}`, undefined));
    expect(checkNames([...names(MAX_CREDSPECS_PER_POD), ref("pod", "name-0", undefined)])).toEqual([]);
    const errors = checkNames(names(MAX_CREDSPECS_PER_POD + 1));
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_TOO_MANY_REFERENCES", 422]]);
    expect(errors[0]?.message).toContain(
      `${MAX_CREDSPECS_PER_POD + 1} distinct credspecs; at most ${MAX_CREDSPECS_PER_POD}`,
    );
  });
});

describe("distinctNames", () => {
  it("keeps valid names once each, in first-seen order", () => {
    const refs = [
      ref("a", "b-name", undefined),
      ref("b", "a-name", "{}"),
      ref("c", "b-name", undefined),
      ref("d", "BAD", undefined),
      ref("e", undefined, "{}"),
    ];
    expect([...distinctNames(refs)]).toEqual(["b-name", "a-name"]);
  });
});

describe("truncate", () => {
  it("keeps short text and cuts long text with an ellipsis", () => {
    expect(truncate("short")).toBe("short");
    expect(truncate("x".repeat(100), 10)).toBe(`${"x".repeat(10)}…`);
  });
});

// Which places warn, with what text, and that NT AUTHORITY\SYSTEM and NETWORK SERVICE in any case do not, is in the
// rule table (test/unit/rules/cases.ts, "authorize warns when ..." and "authorize gives no warning for ...").
describe("listRunAsUserWarnings", () => {
  it("combines a container's GMSA with the pod's user and the other way round", () => {
    const podUser = buildPod({
      windowsOptions: { runAsUserName: "ContainerUser" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "webapp1" } }],
    });
    expect(listRunAsUserWarnings(podUser)).toEqual([expect.stringContaining('container "app"')]);
    const containerUser = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
      containers: [{ name: "app", windowsOptions: { runAsUserName: "ContainerUser" } }],
    });
    expect(listRunAsUserWarnings(containerUser)).toEqual([expect.stringContaining('container "app"')]);
  });

  it("does not warn without a GMSA or without an explicit user", () => {
    expect(listRunAsUserWarnings(podWithGmsaAt("container", { runAsUserName: "ContainerUser" }))).toEqual([]);
    expect(listRunAsUserWarnings(podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1" }))).toEqual([]);
  });

  it("a container's own NT AUTHORITY\\SYSTEM overrides a pod-level local account", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1", runAsUserName: "ContainerUser" },
      containers: [{ name: "app", windowsOptions: { runAsUserName: "NT AUTHORITY\\SYSTEM" } }],
      initContainers: [],
    });
    expect(listRunAsUserWarnings(pod)).toEqual([]);
  });

  it("keeps a long user name short", () => {
    const [warning] = listRunAsUserWarnings(
      podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1", runAsUserName: "u".repeat(500) }),
    );
    expect(warning!.length).toBeLessThan(256);
  });
});
