import { describe, expect, it } from "vitest";
import {
  changeOf,
  EDITED_CREDSPEC,
  ROLLOUT_CREDSPECS,
  ROLLOUT_PODS,
  rolloutCredSpec,
  rolloutCredSpecName,
  rolloutGrant,
  rolloutNamespace,
  rolloutObjects,
  rolloutPodRef,
  rolloutServiceAccount,
} from "../../bench/rollout-plan.ts";

const refs = Array.from({ length: ROLLOUT_PODS }, (_, i) => rolloutPodRef(i));
const pairKey = (r: { namespace: number; serviceAccount: number; credspec: number }) =>
  `${r.namespace}/${r.serviceAccount}/${r.credspec}`;

describe("the rollout's pods", () => {
  it("name 20 credspecs across 100 service accounts in 10 namespaces: 200 pairs, five pods each, none twice within 200 pods", () => {
    expect(new Set(refs.map((r) => r.credspec)).size).toBe(ROLLOUT_CREDSPECS);
    expect(new Set(refs.map((r) => `${r.namespace}/${r.serviceAccount}`)).size).toBe(100);
    expect(new Set(refs.map((r) => r.namespace)).size).toBe(10);
    const perPair = new Map<string, number>();
    for (const r of refs) perPair.set(pairKey(r), (perPair.get(pairKey(r)) ?? 0) + 1);
    expect(perPair.size).toBe(200);
    expect(new Set(perPair.values())).toEqual(new Set([5]));
    for (let i = 0; i + 200 <= ROLLOUT_PODS; i += 50)
      expect(new Set(refs.slice(i, i + 200).map(pairKey)).size).toBe(200);
  });

  it("each name a credspec that a RoleBinding grants their service account; the change touches 50 each: the revoked grant and the edited credspec", () => {
    const grants = Array.from({ length: ROLLOUT_CREDSPECS }, (_, c) => rolloutGrant(c));
    for (const r of refs.slice(0, 200)) {
      const grant = grants.find(
        (g) =>
          (g["roleRef"] as { name: string }).name === `use-${rolloutCredSpecName(r.credspec)}` &&
          g.metadata.namespace === rolloutNamespace(r.namespace) &&
          (g["subjects"] as { name: string }[]).some((s) => s.name === rolloutServiceAccount(r.serviceAccount)),
      );
      expect(grant, pairKey(r)).toBeDefined();
    }
    expect(refs.filter((r) => changeOf(r) === "revoked")).toHaveLength(50);
    expect(refs.filter((r) => changeOf(r) === "edited")).toHaveLength(50);
  });
});

describe("the rollout's objects", () => {
  it("hold every namespace before its service accounts, and the edit changes the contents", () => {
    const objects = rolloutObjects();
    const firstAccount = objects.findIndex((o) => o.kind === "ServiceAccount");
    expect(objects[firstAccount - 1]).toMatchObject({ kind: "Namespace", metadata: { name: rolloutNamespace(0) } });
    expect(objects.filter((o) => o.kind === "GMSACredentialSpec")).toHaveLength(ROLLOUT_CREDSPECS);
    expect(JSON.stringify(rolloutCredSpec(EDITED_CREDSPEC, true))).not.toBe(
      JSON.stringify(rolloutCredSpec(EDITED_CREDSPEC)),
    );
  });
});
