/** `execFile` as a promise of stdout and stderr that rejects when the program fails; its `child` is the process. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

export const run = promisify(execFile);
