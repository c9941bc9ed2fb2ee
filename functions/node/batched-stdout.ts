/**
 * The Node server's log sink: the lines of one turn of the event loop leave in one write. Under load many reviews
 * finish in the same turn, and one write(2) per review's line was about a twentieth of the server's CPU per review
 * (test/bench/RESULTS.md, section G). Lines still leave within the turn (setImmediate) and on exit; stdout to a file
 * or pipe is synchronous in Node, so the exit flush is complete. Not for Lambda or Azure Functions, whose platform
 * may freeze the process as soon as the handler returns: they keep one write per line (deps.ts).
 */

/** A line writer that batches (see the module comment). */
export interface BatchedWriter {
  /** Queues one line (without its newline). */
  write(line: string): void;
  /** Writes the queued lines now. */
  flush(): void;
}

/** Batches lines for `sink`, which receives newline-terminated text. */
export function createBatchedWriter(sink: (text: string) => void): BatchedWriter {
  let pending = "";
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === "") return;
    const text = pending;
    pending = "";
    sink(text);
  };
  return {
    write(line) {
      pending += `${line}\n`;
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
    flush,
  };
}

let stdout: BatchedWriter | undefined;

/** Writes one log line to stdout, batched per turn of the event loop and flushed on exit. */
export function writeStdoutBatched(line: string): void {
  if (stdout === undefined) {
    const writer = createBatchedWriter((text) => process.stdout.write(text));
    process.once("exit", () => writer.flush());
    stdout = writer;
  }
  stdout.write(line);
}
