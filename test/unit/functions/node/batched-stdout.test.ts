import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createBatchedWriter } from "../../../../functions/node/batched-stdout.ts";

describe("createBatchedWriter", () => {
  it("writes the lines of one turn of the event loop together, newline-terminated, in order", async () => {
    const writes: string[] = [];
    const writer = createBatchedWriter((text) => writes.push(text));
    writer.write("a");
    writer.write("b");
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(["a\nb\n"]);
    writer.write("c");
    await nextTurn();
    expect(writes).toEqual(["a\nb\n", "c\n"]);
  });

  it("writes what is queued at once on flush (exit), and nothing when nothing is queued", async () => {
    const writes: string[] = [];
    const writer = createBatchedWriter((text) => writes.push(text));
    writer.flush();
    writer.write("last words");
    writer.flush();
    expect(writes).toEqual(["last words\n"]);
    await nextTurn();
    expect(writes).toEqual(["last words\n"]);
  });
});
