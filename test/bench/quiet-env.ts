/** Imported first by run.ts: no wrangler or Miniflare run may reach outside the machine (docs/development.md). */
import { WRANGLER_OFFLINE_ENV } from "../../infra/build/cloudflare/bundle-size.ts";

Object.assign(process.env, WRANGLER_OFFLINE_ENV);
