/**
 * The exposition writer of functions/node/prometheus-text.ts, read back by Debian's Prometheus parser: escaping,
 * label order, cumulative buckets, values Prometheus spells its own way, and bound children.
 */
import { describe, expect, it } from "vitest";
import { counterFamily, histogramFamily, sampledFamily, writeExposition } from "../../../../functions/node/prometheus-text.ts";
import { parseMetrics, samplesOf } from "../../../support/prometheus.ts";

describe("the Prometheus exposition", () => {
  it("escapes help text and label values so the parser reads them back unchanged", async () => {
    const value = 'back\\slash "quoted"\nnext line';
    const counter = counterFamily("test_escapes_total", "help with \\ and\na second line", ["what"]);
    counter.labels({ what: value }).inc();
    const text = writeExposition([counter]);
    expect(text).toContain('# HELP test_escapes_total help with \\\\ and\\na second line\n');
    const [family] = await parseMetrics(text);
    expect(family?.type).toBe("counter");
    expect(samplesOf([family!], "test_escapes_total")[0]?.labels).toEqual({ what: value });
  });

  it("binds one child per label set, whatever order the labels come in", async () => {
    const counter = counterFamily("test_bound_total", "bound children", ["a", "b"]);
    const child = counter.labels({ a: "1", b: "2" });
    expect(counter.labels({ b: "2", a: "1" })).toBe(child);
    child.inc();
    child.inc(4);
    counter.labels({ a: "3", b: "4" }).inc();
    const text = writeExposition([counter]);
    expect(text).toContain('test_bound_total{a="1",b="2"} 5\n');
    const samples = samplesOf(await parseMetrics(text), "test_bound_total");
    expect(samples.map((sample) => [sample.labels, Number(sample.value)])).toEqual([
      [{ a: "1", b: "2" }, 5],
      [{ a: "3", b: "4" }, 1],
    ]);
  });

  it("refuses a label set that misses one of the family's labels", () => {
    expect(() => counterFamily("test_missing_total", "missing", ["a", "b"]).labels({ a: "1" })).toThrow(/label "b"/);
  });

  it("writes histogram buckets cumulatively, with +Inf, sum and count, the child's labels before le", async () => {
    const histogram = histogramFamily("test_seconds", "a histogram", ["fn"], [0.01, 0.1, 1]);
    const child = histogram.labels({ fn: "expand" });
    for (const value of [0.005, 0.01, 0.05, 0.5, 2]) child.observe(value);
    const families = await parseMetrics(writeExposition([histogram]));
    expect(families[0]?.type).toBe("histogram");
    const buckets = samplesOf(families, "test_seconds_bucket", { fn: "expand" }).map((sample) => [sample.labels["le"], Number(sample.value)]);
    expect(buckets).toEqual([
      ["0.01", 2],
      ["0.1", 3],
      ["1", 4],
      ["+Inf", 5],
    ]);
    expect(Number(samplesOf(families, "test_seconds_count")[0]?.value)).toBe(5);
    expect(Number(samplesOf(families, "test_seconds_sum")[0]?.value)).toBeCloseTo(2.565, 10);
  });

  it("writes a histogram without labels with le alone", async () => {
    const histogram = histogramFamily("test_plain_seconds", "no labels", [], [1]);
    histogram.labels({}).observe(0.5);
    const text = writeExposition([histogram]);
    expect(text).toContain('test_plain_seconds_bucket{le="1"} 1\n');
    expect(text).toContain("test_plain_seconds_sum 0.5\n");
    expect(samplesOf(await parseMetrics(text), "test_plain_seconds_bucket").map((sample) => sample.labels)).toEqual([{ le: "1" }, { le: "+Inf" }]);
  });

  it("reads sampled families at each write and spells non-finite values as Prometheus does", async () => {
    let reads = 0;
    const gauge = sampledFamily("test_gauge", "sampled", "gauge", () => {
      reads += 1;
      return [
        [{ kind: "count" }, reads],
        [{ kind: "up" }, Infinity],
        [{ kind: "down" }, -Infinity],
        [{ kind: "none" }, NaN],
      ];
    });
    writeExposition([gauge]);
    const text = writeExposition([gauge]);
    expect(text).toContain('test_gauge{kind="count"} 2\n');
    expect(text).toContain('test_gauge{kind="up"} +Inf\ntest_gauge{kind="down"} -Inf\ntest_gauge{kind="none"} NaN\n');
    const values = samplesOf(await parseMetrics(text), "test_gauge").map((sample) => sample.value);
    expect(values.slice(1).map(String)).toEqual(["inf", "-inf", "nan"]);
  });

  it("writes HELP and TYPE for a family with no sample yet, and nothing for no family", async () => {
    const text = writeExposition([counterFamily("test_empty_total", "nothing counted", ["a"])]);
    expect(text).toBe("# HELP test_empty_total nothing counted\n# TYPE test_empty_total counter\n");
    expect((await parseMetrics(text))[0]?.samples).toEqual([]);
    expect(writeExposition([])).toBe("");
  });
});
