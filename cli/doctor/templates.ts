/**
 * The pod templates of workloads: the pods a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob will make
 * go through the webhooks as they are made, so a credspec a template names must exist before the next rollout,
 * scale-up or schedule, even while no such pod runs.
 */
import type { V1ObjectMeta, V1OwnerReference, V1PodTemplateSpec } from "@kubernetes/client-node";
import { listOrNone, type DoctorCluster } from "./findings.ts";

/** A workload as listed: where its pod template is depends on its kind. */
type Workload = {
  metadata?: V1ObjectMeta & { ownerReferences?: V1OwnerReference[] };
  spec?: { template?: V1PodTemplateSpec; jobTemplate?: { spec?: { template?: V1PodTemplateSpec } } };
  status?: { completionTime?: string };
};

/** One pod template: `label` names its workload (`Deployment web/app`). */
export type PodTemplate = {
  label: string;
  namespace: string;
  pod: { metadata: V1ObjectMeta; spec: V1PodTemplateSpec["spec"] };
};

const KINDS = [
  ["Deployment", "/apis/apps/v1/deployments"],
  ["StatefulSet", "/apis/apps/v1/statefulsets"],
  ["DaemonSet", "/apis/apps/v1/daemonsets"],
  ["ReplicaSet", "/apis/apps/v1/replicasets"],
  ["Job", "/apis/batch/v1/jobs"],
  ["CronJob", "/apis/batch/v1/cronjobs"],
] as const;

/**
 * Every workload's pod template, cluster-wide. Left out: workloads a controller owns (a Deployment's ReplicaSets, old
 * revisions included, and a CronJob's Jobs: the owner's template is the one that makes the next pods) and finished
 * Jobs, which make no more pods. A kind doctor may not list is left out too (docs/doctor.md, RBAC for doctor).
 */
export async function listPodTemplates(cluster: DoctorCluster): Promise<PodTemplate[]> {
  const lists = await Promise.all(
    KINDS.map(async ([kind, path]) => ({ kind, items: await listOrNone<Workload>(cluster, path) })),
  );
  return lists.flatMap(({ kind, items }) =>
    items.flatMap((w): PodTemplate[] => {
      const owned = w.metadata?.ownerReferences?.some((o) => o.controller === true) === true;
      const template = w.spec?.template ?? w.spec?.jobTemplate?.spec?.template;
      if (owned || w.status?.completionTime !== undefined || template === undefined) return [];
      const namespace = w.metadata?.namespace ?? "";
      return [
        {
          label: `${kind} ${namespace}/${w.metadata?.name ?? ""}`,
          namespace,
          pod: { metadata: { ...template.metadata, namespace }, spec: template.spec },
        },
      ];
    }),
  );
}
