// English messages for our zod/mini schemas: mini keeps the Worker bundle 20 KiB smaller gzipped (test/bench/RESULTS.md)
// but loads no locale, so every problem would read "Invalid input". Each schema's file imports this for its effect.
import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

config(en());

/** An issue's path as our messages write it, `spec.containers[0].name`; "" for the root. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((segment) => (typeof segment === "number" ? `[${segment}]` : `.${String(segment)}`))
    .join("")
    .replace(/^\./, "");
}
