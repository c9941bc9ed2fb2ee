import { describe, expect, it } from "vitest";
import { createJsonLogger } from "../../../shared/log.ts";

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
});
