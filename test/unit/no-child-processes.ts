/**
 * The unit tier runs pure code and in-process or loopback servers of our own: no Go, no apt, no image, no child
 * process of any kind. Every way to start one throws, so a test that needs a program fails here at once with a
 * message saying where it belongs, instead of building or installing inside its own timeout on a fresh machine.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

const ENTRY_POINTS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

for (const name of ENTRY_POINTS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: (command: unknown) => {
      throw new Error(
        `the unit tier starts no child process (child_process.${name}(${JSON.stringify(command)})): a test that runs a program belongs in test/tools`,
      );
    },
  });
}
// ES-module imports of node:child_process read the patched functions too.
syncBuiltinESMExports();
