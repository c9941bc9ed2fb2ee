/**
 * Debian's `python3-prometheus-client`, the Prometheus text-format parser the tests read /metrics with
 * (docs/development.md, Toolchain): `prometheus_client.parser.text_string_to_metric_families`, the parser of Prometheus' own Python
 * client, not a regular expression of ours. Installed with apt-get on first use when running as root.
 *
 * CLI: `node infra/local/prometheus-parser.ts < metrics.txt` installs if needed and prints the families as JSON.
 */
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { aptInstall } from "./apt.ts";

const run = promisify(execFile);

/** Debian's Python, which has the package on its path. */
export const DEBIAN_PYTHON = "/usr/bin/python3";
const PACKAGE = "python3-prometheus-client";

/** One sample as the parser reads it: `name` carries the `_bucket`, `_sum`, `_count` or `_total` suffix. */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: `name` without suffixes, `type` as declared by `# TYPE`. */
export interface ParsedFamily {
  name: string;
  type: string;
  documentation: string;
  samples: ParsedSample[];
}

// Infinity (a bucket bound, never a value here) and NaN are not JSON: their sample values travel as strings.
const SCRIPT = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "documentation": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": s.value if s.value == s.value and abs(s.value) != float("inf") else str(s.value)} for s in f.samples]})
json.dump(out, sys.stdout)
`;

async function installed(): Promise<boolean> {
  try {
    await run(DEBIAN_PYTHON, ["-c", "import prometheus_client.parser"], {
      env: { PATH: "/usr/bin:/bin" },
      timeout: 60_000,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes sure Debian's parser is importable by {@link DEBIAN_PYTHON}, installing the package when it is missing.
 * @throws Error when it is missing and we are not root, or apt-get fails.
 */
export async function ensurePrometheusParser(): Promise<void> {
  if (await installed()) return;
  await aptInstall(PACKAGE);
  if (!(await installed()))
    throw new Error(`apt-get installed ${PACKAGE}, but ${DEBIAN_PYTHON} cannot import prometheus_client.parser`);
}

/**
 * Parses a Prometheus text exposition with Debian's parser (call {@link ensurePrometheusParser} first).
 * @throws Error with the parser's stderr when the text does not parse.
 */
export function parsePrometheusText(text: string): Promise<ParsedFamily[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(DEBIAN_PYTHON, ["-c", SCRIPT], {
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0)
        reject(
          new Error(
            `the Prometheus parser refused the text (exit ${code}): ${Buffer.concat(err).toString().slice(-2000)}`,
          ),
        );
      else resolve(JSON.parse(Buffer.concat(out).toString()) as ParsedFamily[]);
    });
    child.stdin.end(text);
  });
}

if (import.meta.main) {
  await ensurePrometheusParser();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  console.log(JSON.stringify(await parsePrometheusText(Buffer.concat(chunks).toString()), null, 2));
}
