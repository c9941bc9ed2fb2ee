/**
 * The process metrics of /metrics (functions/node/process-metrics.ts), read by Debian's Prometheus parser from this
 * test process: the families and types Prometheus client libraries use, and figures that agree with the process.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { measureEventLoopLag, processFamilies } from "../../../../functions/node/process-metrics.ts";
import { writeExposition } from "../../../../functions/node/prometheus-text.ts";
import { parseMetrics, sumOf, type ParsedFamily } from "../../../support/prometheus.ts";

async function scrape(lag = 0): Promise<ParsedFamily[]> {
  return parseMetrics(writeExposition(processFamilies(lag)));
}

describe("the process metrics", () => {
  it("has each family with the type Prometheus client libraries give it", async () => {
    const types = Object.fromEntries((await scrape()).map((family) => [family.name, family.type]));
    expect(types).toEqual({
      process_cpu_user_seconds: "counter",
      process_cpu_system_seconds: "counter",
      process_cpu_seconds: "counter",
      process_start_time_seconds: "gauge",
      process_resident_memory_bytes: "gauge",
      process_virtual_memory_bytes: "gauge",
      process_open_fds: "gauge",
      process_max_fds: "gauge",
      nodejs_heap_size_total_bytes: "gauge",
      nodejs_heap_size_used_bytes: "gauge",
      nodejs_external_memory_bytes: "gauge",
      nodejs_eventloop_lag_seconds: "gauge",
      nodejs_version_info: "gauge",
    });
  });

  it("reads figures that agree with the process", async () => {
    const before = process.cpuUsage();
    const families = await scrape(0.25);
    const value = (name: string) => sumOf(families, name);
    expect(value("process_cpu_seconds_total")).toBeCloseTo(value("process_cpu_user_seconds_total") + value("process_cpu_system_seconds_total"), 6);
    expect(value("process_cpu_seconds_total")).toBeGreaterThanOrEqual((before.user + before.system) / 1e6);
    const startedAt = Date.now() / 1000 - process.uptime();
    expect(Math.abs(value("process_start_time_seconds") - startedAt)).toBeLessThanOrEqual(1);
    const rss = process.memoryUsage.rss();
    expect(value("process_resident_memory_bytes")).toBeGreaterThan(rss / 2);
    expect(value("process_resident_memory_bytes")).toBeLessThan(rss * 2);
    expect(value("process_virtual_memory_bytes")).toBeGreaterThan(value("process_resident_memory_bytes"));
    const open = readdirSync("/proc/self/fd").length - 1;
    expect(Math.abs(value("process_open_fds") - open)).toBeLessThanOrEqual(2);
    expect(value("process_max_fds")).toBeGreaterThan(value("process_open_fds"));
    expect(value("nodejs_heap_size_used_bytes")).toBeLessThanOrEqual(value("nodejs_heap_size_total_bytes"));
    expect(value("nodejs_eventloop_lag_seconds")).toBe(0.25);
    const [major, minor, patch] = process.versions.node.split(".");
    expect(families.find((family) => family.name === "nodejs_version_info")?.samples[0]?.labels).toEqual({ version: process.version, major, minor, patch });
  });

  it("measures the event loop lag as the wait of an immediate callback", async () => {
    const idle = await measureEventLoopLag();
    expect(idle).toBeGreaterThanOrEqual(0);
    const busy = measureEventLoopLag();
    const until = Date.now() + 60;
    while (Date.now() < until) {
      // The loop is blocked: the immediate callback waits for this.
    }
    expect(await busy).toBeGreaterThanOrEqual(0.05);
  });
});
