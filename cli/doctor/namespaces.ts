/**
 * Namespaces still labelled with the opt-out of kubernetes-sigs/windows-gmsa. The webhooks no longer honour it (whoever
 * creates a namespace could set it and so opt their own namespace out), so after a migration such a namespace is
 * enforced: its GMSA pods are reviewed. The label is flagged so the operator removes it, or exempts the namespace by name.
 */
import type { V1Namespace } from "@kubernetes/client-node";
import { finding, type Finding } from "./findings.ts";
import { OLD_OPT_OUT_LABEL } from "./webhooks.ts";

/** At most this many names in the message; the rest are counted. */
const MAX_NAMED = 10;

/** One warning naming the namespaces labelled `windows.k8s.io/disabled: "true"`, with the fix; none when there are none. */
export function checkOldOptOutLabel(namespaces: readonly V1Namespace[]): Finding[] {
  const names = namespaces
    .filter((n) => n.metadata?.labels?.[OLD_OPT_OUT_LABEL] === "true")
    .flatMap((n) => n.metadata?.name ?? []);
  if (names.length === 0) return [];
  const more = names.length > MAX_NAMED ? ` and ${names.length - MAX_NAMED} more` : "";
  const listed = names.slice(0, MAX_NAMED).join(", ") + more;
  const message = `${OLD_OPT_OUT_LABEL}: "true" is not honoured (any namespace creator can set it), so the webhooks review GMSA pods in ${listed}`;
  const fix = `kubectl label namespace ${names.slice(0, MAX_NAMED).join(" ")} ${OLD_OPT_OUT_LABEL}-; to exempt one, list it in the chart's webhooks.exemptNamespaces (overlays: components/exempt-namespaces)`;
  return [finding("namespaces/opt-out-label", "warn", message, fix)];
}
