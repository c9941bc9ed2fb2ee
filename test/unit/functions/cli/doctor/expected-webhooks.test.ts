/**
 * The doctor's expectations equal what we ship: infra/webhooks/*.yaml (less clientConfig) and the webhooks that
 * `helm template` renders from the chart with its default values, so neither can change without the doctor.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { parse, parseAllDocuments } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureHelm } from "../../../../../infra/local/build.ts";
import { CHART_DIR } from "../../../../../infra/helm/chart-files.ts";
import { EXPECTED_WEBHOOKS } from "../../../../../functions/cli/doctor/expected-webhooks.ts";
import { FUNCTION_NAMES } from "../../../../../shared/config/index.ts";

interface Rendered {
  kind: string;
  metadata: { name: string };
  webhooks?: ({ clientConfig?: unknown } & Record<string, unknown>)[];
}

const withoutClientConfig = ({ clientConfig: _clientConfig, ...rest }: { clientConfig?: unknown } & Record<string, unknown>) => rest;

describe("the doctor's expected webhook configurations", () => {
  it.each(FUNCTION_NAMES)("equal infra/webhooks/%s.yaml", async (fn) => {
    const file = parse(await readFile(new URL(`../../../../../infra/webhooks/${fn}.yaml`, import.meta.url), "utf8")) as Rendered;
    expect(file.kind).toBe(EXPECTED_WEBHOOKS[fn].kind);
    expect(file.metadata.name).toBe(EXPECTED_WEBHOOKS[fn].configName);
    expect(file.webhooks?.map(withoutClientConfig)).toEqual([EXPECTED_WEBHOOKS[fn].webhook]);
  });

  describe("equal helm template's output", () => {
    let rendered: Rendered[];
    beforeAll(async () => {
      const helm = await ensureHelm();
      const values = ["--set", "callerAuth.expand=t", "--set", "callerAuth.authorize=t", "--set-json", 'networkPolicy.controlPlaneCIDRs=["10.0.0.0/8"]', "--set", "image.repository=registry.invalid/gmsa-webhooks"];
      const { stdout } = await promisify(execFile)(helm, ["template", "gmsa-webhooks", CHART_DIR, "-n", "gmsa-webhooks", ...values], { maxBuffer: 16 * 1024 * 1024 });
      rendered = parseAllDocuments(stdout).map((d) => d.toJS() as Rendered).filter((o) => o?.kind?.endsWith("WebhookConfiguration"));
    }, 300_000);

    it.each(FUNCTION_NAMES)("for %s, under the URL install's name", (fn) => {
      const config = rendered.find((o) => o.kind === EXPECTED_WEBHOOKS[fn].kind);
      expect(config?.metadata.name).toBe(EXPECTED_WEBHOOKS[fn].configName);
      expect(config?.webhooks?.map(withoutClientConfig)).toEqual([EXPECTED_WEBHOOKS[fn].webhook]);
    });
  });
});
