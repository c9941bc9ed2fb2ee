/**
 * Every file generated from the typed source: the kustomize bases' manifests under infra/ and, for those the Helm
 * chart reads, their copies in infra/deploy/helm/gmsa-webhooks/files/ (a chart cannot read outside its folder); the
 * chart's values schema for callerAuth; wrangler.toml's environments.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { renderValuesSchema, VALUES_SCHEMA_PATH } from "./chart-values-schema.ts";
import { renderWranglerToml, WRANGLER_PATH } from "./wrangler-envs.ts";
import { CRD_FILE_HEADER, CREDSPEC_CRD } from "./crd.ts";
import { BINDING_FILE_HEADER, buildPolicy, buildPolicyBinding, POLICY_FILE_HEADER } from "./policy.ts";
import { FUNCTION_RBAC, RBAC_FILE_HEADERS } from "./rbac.ts";
import { renderManifestFile, type ManifestFile } from "./render.ts";
import { WEBHOOK_CONFIGURATIONS, webhookFileHeader } from "./webhooks.ts";

/** The chart's folder, repository-relative. */
export const CHART_PATH = join("infra", "deploy", "helm", "gmsa-webhooks");

const source = (file: string) => `infra/build/manifests/${file}`;

/** The manifests, by path under infra/. */
export function manifestFiles(): ManifestFile[] {
  return [
    {
      path: "crd/gmsacredentialspecs.yaml",
      source: source("crd.ts"),
      header: CRD_FILE_HEADER,
      objects: [CREDSPEC_CRD],
      inChart: true,
    },
    ...FUNCTION_NAMES.map((fn) => ({
      path: `rbac/${fn}.yaml`,
      source: source("rbac.ts"),
      header: RBAC_FILE_HEADERS[fn],
      objects: FUNCTION_RBAC[fn],
      inChart: true,
    })),
    ...FUNCTION_NAMES.map((fn) => ({
      path: `webhooks/${fn}.yaml`,
      source: source("webhooks.ts"),
      header: webhookFileHeader(fn),
      objects: [WEBHOOK_CONFIGURATIONS[fn]],
      inChart: true,
    })),
    {
      path: "policy/policy.yaml",
      source: source("policy.ts"),
      header: POLICY_FILE_HEADER,
      objects: [buildPolicy()],
      inChart: true,
    },
    {
      path: "policy/binding.yaml",
      source: source("policy.ts"),
      header: BINDING_FILE_HEADER,
      objects: [buildPolicyBinding()],
      inChart: true,
    },
  ];
}

/**
 * Each generated file's text, by repository-relative path. The chart's values.schema.json (`callerAuth`) and
 * wrangler.toml (the environments) are generated in part, so their current text is read to keep the rest.
 */
export function renderGeneratedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of manifestFiles()) {
    const text = renderManifestFile(file);
    files.set(join("infra", "deploy", file.path), text);
    if (file.inChart) files.set(join(CHART_PATH, "files", file.path), text);
  }
  const schemaPath = join(CHART_PATH, VALUES_SCHEMA_PATH);
  files.set(schemaPath, renderValuesSchema(readFileSync(join(REPO_ROOT, schemaPath), "utf8")));
  files.set(WRANGLER_PATH, renderWranglerToml(readFileSync(join(REPO_ROOT, WRANGLER_PATH), "utf8")));
  return files;
}
