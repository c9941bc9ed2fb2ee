/**
 * node:http without its ES module facade. `import ... from "node:http"` makes Node evaluate every export of the
 * module, including the lazy WebSocket ones, which load its bundled undici: about 5 MiB of memory and, in a Lambda
 * cold start, its compile time, for nothing we use. process.getBuiltinModule returns the module as CommonJS code
 * sees it, where those stay lazy. Type-only imports of node:http are fine.
 */
import type * as http from "node:http";

export function nodeHttp(): typeof http {
  return process.getBuiltinModule("node:http");
}
