/**
 * CLI: `node infra/build/helm/build.ts` builds Helm from this folder's go.mod and go.sum into `.cache/bin/` (once;
 * infra/build/tools/go-build.ts) and prints its path. The release and the chart tests use this Helm.
 */
import { ensureHelm } from "../tools/go-build.ts";

console.log(await ensureHelm());
