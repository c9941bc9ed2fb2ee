/** What every doctor check returns, the read-only view of the cluster the checks are given, what the operator may tell them, and the report. */
import type { FunctionName } from "../../shared/config/index.ts";
import type { ServiceAccountRef } from "../credspec/render.ts";
import { listAll, type ClusterConnection, type Paint } from "../cluster.ts";

/**
 * One line of the doctor's report: the check family and subject (`credspec/webapp01`), what was found naming the
 * object and field (never a secret: a path secret in a URL is masked), how to fix it, and for the end-to-end probes
 * how long the API server took. `pass` and `warn` keep the exit status 0, a `fail` makes it 1, a `skip` says why.
 */
export interface Finding {
  check: string;
  status: "pass" | "warn" | "fail" | "skip";
  message: string;
  fix?: string;
  ms?: number;
}

/** The cluster as the doctor sees it (the CLI's connection): GETs, reviews and dry runs only. */
export type DoctorCluster = Pick<ClusterConnection, "request">;

/** What the operator may tell the doctor instead of letting it look (docs/doctor.md, Options). */
export interface DoctorOptions {
  credspec?: string | undefined;
  namespace?: string | undefined;
  serviceAccount?: ServiceAccountRef | undefined;
  identities?: Partial<Record<FunctionName, string | undefined>>;
}

/** Builds a finding; `fix` only when given. */
export function finding(check: string, status: Finding["status"], message: string, fix?: string): Finding {
  return fix === undefined ? { check, status, message } : { check, status, message, fix };
}

const DOCTOR_RBAC_FIX = "run doctor as a user with the read-only role in docs/doctor.md (RBAC for doctor)";

/**
 * What the API server answered one of doctor's own requests, with its Status message; without the hint the shared
 * client gives a function ("check this function's RBAC"), since the identity here is the operator's.
 */
export function doctorError(error: unknown): string {
  const said = (error as { cause?: { message?: unknown } } | null)?.cause?.message;
  const answer = (error instanceof Error ? error.message : String(error)).replace(/: check this function's RBAC$/, "");
  return typeof said === "string" && said !== "" ? `${answer}: ${said}` : answer;
}

/** The `items` of every page of a list, or the failure when the list could not be read. */
export function listItems<T>(cluster: DoctorCluster, check: string, path: string): Promise<T[] | Finding> {
  return (listAll(cluster, path, `GET ${path}`) as Promise<T[]>).catch((error: unknown) =>
    finding(check, "fail", doctorError(error), DOCTOR_RBAC_FIX),
  );
}

/** The findings of `run`, or one failure of `check` when a request of it failed: the checks after it still run. */
export async function findingsOr(check: string, run: () => Promise<Finding[]>): Promise<Finding[]> {
  try {
    return await run();
  } catch (error) {
    const fix = `${DOCTOR_RBAC_FIX}; run doctor again if the API server was busy (429)`;
    return [finding(check, "fail", `could not be checked: ${doctorError(error)}`, fix)];
  }
}

/** The `items` of every page of a list, or none when it could not be read (what is looked for is then not found). */
export async function listOrNone<T>(cluster: DoctorCluster, path: string): Promise<T[]> {
  return (await listAll(cluster, path, `GET ${path}`).catch(() => [])) as T[];
}

/** The message of a Kubernetes Status body (or the start of a text body). */
export function statusMessage(body: unknown): string {
  if (typeof body === "string") return body.slice(0, 300);
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : (JSON.stringify(body)?.slice(0, 300) ?? "");
}

/** What `-o json|yaml` prints: the findings and the count of each status. */
export function buildDoctorReport(findings: readonly Finding[]): {
  findings: readonly Finding[];
  summary: Record<Finding["status"], number>;
} {
  const summary = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const f of findings) summary[f.status]++;
  return { findings, summary };
}

const TAGS = {
  pass: ["ok  ", "ok"],
  warn: ["warn", "warn"],
  fail: ["FAIL", "bad"],
  skip: ["skip", undefined],
} as const;

/** Text: `FAIL check  message`, the fix indented below, and a closing count; `paint` colours only the tags. */
export function formatFindingsText(findings: readonly Finding[], paint?: Pick<Paint, "ok" | "bad" | "warn">): string {
  const width = Math.max(0, ...findings.map((f) => f.check.length));
  const lines = findings.flatMap((f) => {
    const [tag, colour] = TAGS[f.status];
    const line = `${colour === undefined || paint === undefined ? tag : paint[colour](tag)} ${f.check.padEnd(width)}  ${f.message}`;
    return f.fix !== undefined && f.status !== "pass" ? [line, `     ${" ".repeat(width)}  fix: ${f.fix}`] : [line];
  });
  const c = buildDoctorReport(findings).summary;
  return `${lines.join("\n")}\n\n${c.fail} failed, ${c.warn} warnings, ${c.pass} passed, ${c.skip} skipped\n`;
}
