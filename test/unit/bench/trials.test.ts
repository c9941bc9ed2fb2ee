import { describe, expect, it } from "vitest";
import { alternateTrials, median, medianRatio } from "../../bench/trials.ts";

describe("median", () => {
  it("is the middle value of an odd count, whatever the order, leaving the values as they were; of an even count the mean of the two middle values; NaN for none", () => {
    const values = [30, 10, 20];
    expect(median(values)).toBe(20);
    expect(values).toEqual([30, 10, 20]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe("medianRatio", () => {
  it("takes the median of the trial-by-trial ratios, not the ratio of the medians; NaN when the trials do not pair up", () => {
    // Ratios 2, 4, 3: median 3. The medians' ratio would be 200 / 100 = 2.
    expect(medianRatio([200, 400, 150], [100, 100, 50])).toBe(3);
    expect(medianRatio([1, 2, 3], [1, 2])).toBeNaN();
  });
});

describe("alternateTrials", () => {
  it("runs ours and theirs in turn, one at a time, and gives each its results in order", async () => {
    const order: string[] = [];
    let running = 0;
    const run = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      await Promise.resolve();
      running--;
      order.push(name);
      return `${name}${order.filter((n) => n === name).length}`;
    };
    const [ours, theirs] = await alternateTrials(3, [run("ours"), run("go")]);
    expect(order).toEqual(["ours", "go", "ours", "go", "ours", "go"]);
    expect(ours).toEqual(["ours1", "ours2", "ours3"]);
    expect(theirs).toEqual(["go1", "go2", "go3"]);
  });

  it("runs a single side three times alone", async () => {
    let calls = 0;
    expect(await alternateTrials(3, [() => Promise.resolve(++calls)])).toEqual([[1, 2, 3]]);
  });
});
