/**
 * A stand-in for the functions in e2e tests of the webhook configurations: an HTTPS server that
 * records which admission reviews the API server sends and allows them all.
 */
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { AdmissionReviewRequest, Pod } from "../../shared/admission/review.ts";

/** What the API server asked, per call. */
export interface RecordedReview {
  /** `/expand` or `/authorize` (the query, e.g. `?timeout=10s`, is dropped). */
  path: string;
  operation: string;
  /** The pod's name, from the request or the object. */
  name: string;
  subResource?: string | undefined;
  dryRun: boolean;
}

/** A running recorder; `reviews` grows as calls arrive. */
export interface RecordingWebhook {
  /** Base URL, e.g. `https://127.0.0.1:41234`. */
  url: string;
  reviews: RecordedReview[];
  close(): Promise<void>;
}

/** Serves HTTPS on a free loopback port with the given certificate. */
export async function startRecordingWebhook(certPem: string, keyPem: string): Promise<RecordingWebhook> {
  const reviews: RecordedReview[] = [];
  const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdmissionReviewRequest;
      const { request } = review;
      reviews.push({
        path: new URL(req.url ?? "/", "https://x").pathname,
        operation: request.operation,
        name: request.name || ((request.object as Pod | undefined)?.metadata?.name ?? ""),
        subResource: request.subResource,
        dryRun: request.dryRun === true,
      });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          apiVersion: review.apiVersion,
          kind: "AdmissionReview",
          response: { uid: request.uid, allowed: true },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    reviews,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
