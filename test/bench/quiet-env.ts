/**
 * Imported first by run.ts: no wrangler or Miniflare run of the benchmark may reach outside the machine
 * (DESIGN.md section 1).
 */
process.env["WRANGLER_SEND_METRICS"] = "false";
process.env["CLOUDFLARE_CF_FETCH_ENABLED"] = "false";
