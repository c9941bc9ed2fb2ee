/**
 * Requests every adapter of the HTTP surface must answer alike (the Node listener, Lambda's payload 2.0 path and
 * the Hono app): each route and method, bad and good bodies, odd paths, repeated headers.
 */
import { gmsaReview } from "./reviews.ts";

export const PARITY_TOKEN = "parity-token-0123456789abcdef";
export const PARITY_SECRET = "parity-path-secret-0123456789abcdefghij";

/** One request: method, path with query, headers as raw pairs (so a name may repeat), body. */
export interface Probe {
  method: string;
  path: string;
  headers?: [string, string][];
  body?: string;
  /** Sent without Content-Length (chunked). */
  chunked?: boolean;
}

const json: [string, string] = ["content-type", "application/json"];

/**
 * The probes for a caller auth: `auth` are its headers, `prefix` turns a function (or `metrics`) into its path.
 * The first is an allowed review.
 */
export function httpProbes(auth: [string, string][], prefix: (fn: string) => string): Probe[] {
  const review = gmsaReview();
  return [
    { method: "POST", path: `${prefix("authorize")}?timeout=10s`, headers: [json, ...auth], body: review },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth], body: review, chunked: true },
    { method: "POST", path: prefix("expand"), headers: [json], body: review },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth, ...auth], body: review },
    { method: "GET", path: prefix("expand"), headers: auth },
    { method: "HEAD", path: prefix("authorize"), headers: auth },
    { method: "PUT", path: prefix("authorize"), headers: [json, ...auth], body: review },
    { method: "POST", path: prefix("expand"), headers: [["content-type", "text/plain"], ...auth], body: review },
    { method: "POST", path: prefix("expand"), headers: [json, ["content-type", "text/plain"], ...auth], body: review },
    { method: "POST", path: prefix("expand"), headers: auth, body: review },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth], body: "x".repeat(70 * 1024) },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth], body: "x".repeat(70 * 1024), chunked: true },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth], body: "" },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth], body: "{not json" },
    { method: "POST", path: prefix("expand"), headers: [json, ...auth], body: '{"kind":"Pod"}' },
    { method: "POST", path: `${prefix("expand")}?timeout=junk&timeout=1s`, headers: [json, ...auth], body: review },
    { method: "POST", path: prefix("exp%61nd"), headers: [json, ...auth], body: review },
    { method: "POST", path: `${prefix("expand")}/`, headers: [json, ...auth], body: review },
    { method: "GET", path: prefix("metrics"), headers: auth },
    { method: "GET", path: prefix("metrics") },
    { method: "GET", path: "/healthz" },
    { method: "HEAD", path: "/healthz" },
    { method: "POST", path: "/healthz", body: "{}" },
    { method: "GET", path: "/readyz" },
    { method: "GET", path: "/version" },
    { method: "GET", path: "/heal%74hz" },
    { method: "GET", path: "/healthz/" },
    { method: "GET", path: "/" },
    { method: "GET", path: "/nowhere/at/all" },
    { method: "DELETE", path: "/version" },
  ];
}
