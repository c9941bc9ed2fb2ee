#!/usr/bin/env node
/**
 * The `gmsa-webhooks` command (package.json `bin`), run as `npx gmsa-webhooks credspec ...` or
 * `npm run credspec -- ...`.
 *
 * This file is the bin itself, TypeScript with a node shebang: Node 24 strips the types of `.ts` files it runs
 * (on by default since Node 23.6), and npx and npm scripts put `node_modules/.bin` first on PATH, where the `node`
 * dev dependency provides v24 (docs/development.md, Toolchain). An older `node` on PATH fails with ERR_UNKNOWN_FILE_EXTENSION.
 * Node strips types only outside node_modules, so this bin serves a checkout of this repository, not an installed
 * copy of the package (which is private).
 */
import { runCli } from "./main.ts";
import { createProcessIo } from "./io.ts";

process.exitCode = await runCli(process.argv.slice(2), createProcessIo());
