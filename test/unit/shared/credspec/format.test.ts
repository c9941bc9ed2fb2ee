import { describe, expect, it } from "vitest";
import type { CredSpecDocument } from "../../../../shared/credspec/validate.ts";
import { formatKubeObjects } from "../../../../shared/credspec/format.ts";
import { buildCredSpecResources } from "../../../../shared/credspec/render.ts";
import { editJson, loadCredSpecFixture, printAndParse } from "../../../support/credspec-fixtures.ts";

const document = loadCredSpecFixture("webapp1-non-domain-joined.json") as unknown as CredSpecDocument;

describe("formatKubeObjects", () => {
  it("quotes strings that YAML 1.1 (kubectl) would read as booleans", () => {
    const odd = editJson(document, "DomainJoinConfig.NetBiosName", "ON") as CredSpecDocument;
    const yaml = formatKubeObjects(buildCredSpecResources(odd, { name: "webapp1" }), "yaml");
    expect(yaml).toContain('NetBiosName: "ON"');
    expect(printAndParse(buildCredSpecResources(odd, { name: "webapp1" }))[0]).toMatchObject({ credspec: { DomainJoinConfig: { NetBiosName: "ON" } } });
  });

  it("prints YAML as one document per object", () => {
    const objects = buildCredSpecResources(document, { name: "webapp1", serviceAccounts: [{ namespace: "web", name: "frontend" }] });
    const yaml = formatKubeObjects(objects, "yaml");
    expect(yaml.split(/^---$/m)).toHaveLength(3);
    expect(yaml.endsWith("\n")).toBe(true);
  });

  it("prints JSON as a v1 List of the same objects", () => {
    const objects = buildCredSpecResources(document, { name: "webapp1", serviceAccounts: [{ namespace: "web", name: "frontend" }] });
    expect(JSON.parse(formatKubeObjects(objects, "json"))).toEqual({ apiVersion: "v1", kind: "List", items: printAndParse(objects) });
  });
});
