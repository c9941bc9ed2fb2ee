#!/usr/bin/env node
// The CLI's entry for links on PATH (`kubectl-gmsa`, docs/kubectl-gmsa.md): plain JavaScript that any Node parses, so
// an older `node` first on PATH gets one line saying what to do instead of ERR_UNKNOWN_FILE_EXTENSION and a stack
// trace from gmsa-webhooks.ts, which needs Node 24 to strip its types.
import process from "node:process";

const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  const program = process.argv[1] ? process.argv[1].split("/").pop() : "gmsa-webhooks";
  process.stderr.write(
    `${program}: needs Node 24 or later, found ${process.version} at ${process.execPath}; put the project's Node first on PATH (export PATH=<checkout>/node_modules/.bin:$PATH)\n`,
  );
  process.exit(1);
}
await import("./gmsa-webhooks.ts");
