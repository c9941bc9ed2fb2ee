/**
 * Node built-ins without their ES module facade. `import ... from "node:x"` makes Node evaluate every export of the
 * module, lazy ones included, and keep what they build:
 * - node:http's WebSocket exports load its bundled undici: about 5 MiB of memory and, in a Lambda cold start, its
 *   compile time;
 * - node:tls's `rootCertificates` builds the list of Node's bundled CAs (180 KB of strings);
 * - node:crypto's `webcrypto`, `subtle` and `getRandomValues` load Web Crypto.
 *
 * We use none of those. process.getBuiltinModule returns the module as CommonJS code sees it, where they stay lazy.
 * Type-only imports of these modules are fine.
 */
import type * as crypto from "node:crypto";
import type * as http from "node:http";
import type * as tls from "node:tls";

export function nodeHttp(): typeof http {
  return process.getBuiltinModule("node:http");
}

export function nodeTls(): typeof tls {
  return process.getBuiltinModule("node:tls");
}

export function nodeCrypto(): typeof crypto {
  return process.getBuiltinModule("node:crypto");
}
