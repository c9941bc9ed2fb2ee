/**
 * The sample `kubectl gmsa doctor` output of README.md and docs/doctor.md, held to a real run's shape: each sample line
 * matches a line of the output (in order), modulo numbers (times, dates, counts) and the padding of the check column.
 * A sample with a `...` line is an excerpt; one without it must match the output line for line.
 */
import { expect } from "vitest";
import { readRepoFile } from "../../support/guide-text.ts";

/** The first ```console block of `file` that starts with `$ kubectl gmsa doctor`, less that line and blank lines. */
export async function readDoctorSample(file: string): Promise<string[]> {
  const text = await readRepoFile(file);
  const block = /```console\n\$ kubectl gmsa doctor\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error(`${file} has no console block of kubectl gmsa doctor`);
  return block.split("\n").filter((line) => line.trim() !== "");
}

/** A sample line as a pattern: numbers stand for any number, runs of spaces for any padding. */
function shapeOf(line: string): RegExp {
  const escaped = line.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped.replace(/\d+/g, "\\d+").replace(/ +/g, " +")}$`);
}

/** Expects `output` (doctor's text, no colour) to have the shape of the sample of `file`. */
export async function expectSampleShape(file: string, output: string): Promise<void> {
  const sample = await readDoctorSample(file);
  const lines = output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.trim());
  const excerpt = sample.includes("...");
  const wanted = sample.filter((line) => line !== "...");
  if (!excerpt)
    expect(lines.length, `${file}'s sample has as many lines as the output:\n${output}`).toBe(wanted.length);
  let at = 0;
  for (const line of wanted) {
    const shape = shapeOf(line);
    while (at < lines.length && !shape.test(lines[at]!)) at++;
    expect(
      at < lines.length,
      `${file}: no output line (in order) has the shape of\n  ${line}\noutput:\n${output}`,
    ).toBe(true);
    at++;
  }
}
