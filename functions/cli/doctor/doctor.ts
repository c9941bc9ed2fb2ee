/**
 * `kubectl gmsa doctor`: every check in order, read-only (GETs, access reviews, dry runs). A failing end-to-end
 * probe after an earlier failure is reported as a skip: the earlier failure explains it, so each fault is named once.
 */
import { FUNCTION_NAMES, type FunctionName } from "../../../shared/config/index.ts";
import type { ServiceAccountRef } from "../../../shared/credspec/render.ts";
import { checkCaBundle, checkReadyz, checkUrlCertificate } from "./certificates.ts";
import { checkCrdAndCredSpecs } from "./credspecs.ts";
import { finding, listItems, type DoctorCluster, type Finding } from "./findings.ts";
import { checkIdentities, findIdentities, parseIdentity, type Identity } from "./identities.ts";
import { checkGmsaPods, checkWindowsNodes, isAksCluster, type NodeObject } from "./nodes.ts";
import { findProbeSubjects, runProbes } from "./probe.ts";
import { checkWebhookConfigurations, type WebhookConfiguration } from "./webhooks.ts";

/** What the operator may tell the doctor instead of letting it look. */
export interface DoctorOptions {
  /** The credspec the end-to-end probes name. */
  credspec?: string;
  /** The namespace to probe in (`-n`); default wherever a bound service account may use a credspec. */
  namespace?: string;
  /** A service account that may use it (the probe expecting expand to inline). */
  serviceAccount?: ServiceAccountRef;
  /** The functions' identities (user names) when they are not the chart's or infra/rbac's ServiceAccounts. */
  identities?: Partial<Record<FunctionName, string>>;
  /** Milliseconds since the epoch, for certificate expiry; default now. */
  now?: number;
}

/** Runs every check; the exit status is 1 when any finding is `fail`. */
export async function runDoctor(cluster: DoctorCluster, options: DoctorOptions = {}): Promise<Finding[]> {
  const now = options.now ?? Date.now();
  const findings: Finding[] = [];
  const credspecs = await checkCrdAndCredSpecs(cluster);
  findings.push(...credspecs.findings);

  const nodes = await listItems<NodeObject>(cluster, "nodes", "/api/v1/nodes");
  findings.push("error" in nodes ? nodes.error : checkWindowsNodes(nodes.items));
  const isAks = "items" in nodes && isAksCluster(nodes.items);

  const list = (plural: string) => listItems<WebhookConfiguration>(cluster, "webhooks", `/apis/admissionregistration.k8s.io/v1/${plural}`);
  const [mutating, validating] = await Promise.all([list("mutatingwebhookconfigurations"), list("validatingwebhookconfigurations")]);
  if ("error" in mutating) return [...findings, mutating.error];
  if ("error" in validating) return [...findings, validating.error];
  const webhooks = checkWebhookConfigurations({ mutating: mutating.items, validating: validating.items }, isAks);
  findings.push(...webhooks.findings);

  for (const found of webhooks.found) {
    findings.push(...checkCaBundle(found, now));
    if (found.webhook.clientConfig?.url !== undefined) findings.push(...(await checkUrlCertificate(found, now)));
    findings.push(await checkReadyz(cluster, found));
  }

  const given: Partial<Record<FunctionName, Identity>> = Object.fromEntries(
    Object.entries(options.identities ?? {}).map(([fn, user]) => [fn, parseIdentity(user)]),
  );
  const found = FUNCTION_NAMES.every((fn) => given[fn] !== undefined) ? {} : await findIdentities(cluster);
  findings.push(...(await checkIdentities(cluster, { ...found, ...given })));

  const pods = await listItems<Parameters<typeof checkGmsaPods>[1][number]>(cluster, "pods", "/api/v1/pods");
  findings.push(...("error" in pods ? [pods.error] : await checkGmsaPods(cluster, pods.items)));

  const earlierFailure = findings.some((f) => f.status === "fail");
  const ordered = [...credspecs.wellFormed, ...credspecs.all.filter((n) => !credspecs.wellFormed.includes(n))];
  const subjects = await findProbeSubjects(cluster, ordered, {
    ...(options.credspec === undefined ? {} : { credspec: options.credspec }),
    ...(options.serviceAccount === undefined ? {} : { allowed: options.serviceAccount }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const probes = "status" in subjects ? [subjects] : await runProbes(cluster, subjects, webhooks.found);
  for (const probe of probes) {
    const inconclusive = earlierFailure && probe.status === "fail";
    findings.push(inconclusive ? { ...probe, status: "skip", message: `${probe.message} (follows from the failures above)` } : probe);
  }
  if (webhooks.found.length === 0) findings.push(finding("end-to-end", "skip", "no webhook of ours is registered"));
  return findings;
}
