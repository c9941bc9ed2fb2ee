/** The do-nothing webhook (minimal-webhook.ts): `node <bundle> <port> <certFile> <keyFile>`, MINIMAL_WEBHOOK_PATCH. */
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AdmissionReviewRequest } from "../../shared/admission/review.ts";

function serve(port: number, certFile: string, keyFile: string, patch: string): void {
  let authorizeReviews = 0;
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET") {
      res.setHeader("content-type", path === "/metrics" ? "application/json" : "text/plain");
      res.end(path === "/metrics" ? JSON.stringify({ authorize_reviews_total: authorizeReviews }) : "ok");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdmissionReviewRequest;
      const expand = path === "/expand";
      if (!expand) authorizeReviews++;
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          apiVersion: review.apiVersion,
          kind: "AdmissionReview",
          response: { uid: review.request.uid, allowed: true, ...(expand ? { patchType: "JSONPatch", patch } : {}) },
        }),
      );
    });
  });
  // As functions/node/server.ts: past kube-apiserver's 90 s, so it never writes a review to a connection being closed
  // (Node's default, 5 s, fails such creates with "broken pipe").
  server.keepAliveTimeout = 120_000;
  server.listen(port, "127.0.0.1");
  process.once("SIGTERM", () => server.close(() => process.exit(0)));
}

if (import.meta.main) {
  const [port, certFile, keyFile] = process.argv.slice(2);
  const patch = process.env["MINIMAL_WEBHOOK_PATCH"];
  if (port === undefined || certFile === undefined || keyFile === undefined || patch === undefined) {
    console.error("usage: MINIMAL_WEBHOOK_PATCH=<base64> node <bundle> <port> <certFile> <keyFile>");
    process.exit(2);
  }
  serve(Number(port), certFile, keyFile, patch);
}
