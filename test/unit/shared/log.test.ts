import { afterEach, describe, expect, it, vi } from "vitest";
import { createJsonLogger, LOG_LEVELS, silentLogger } from "../../../shared/log.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("createJsonLogger", () => {
  it("writes one JSON line per entry at or above its level, stamped by now", () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ level: "info", write: (l) => lines.push(l), now: () => 0 });
    logger.log("debug", "dropped");
    logger.log("info", "kept", { uid: "u1", code: 403 });
    logger.log("error", "also kept");
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { time: "1970-01-01T00:00:00.000Z", level: "info", msg: "kept", uid: "u1", code: 403 },
      { time: "1970-01-01T00:00:00.000Z", level: "error", msg: "also kept" },
    ]);
  });

  it("silentLogger drops everything", () => {
    const written = [
      vi.spyOn(process.stdout, "write"),
      vi.spyOn(process.stderr, "write"),
      ...(["log", "info", "warn", "error", "debug"] as const).map((method) => vi.spyOn(console, method)),
    ];
    for (const level of LOG_LEVELS) expect(() => silentLogger.log(level, "x", { uid: "u1" })).not.toThrow();
    for (const spy of written) expect(spy).not.toHaveBeenCalled();
  });
});
