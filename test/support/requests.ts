/** Request inits and bodies for tests that call `app.request` directly. */

/** A POST of `body` as JSON with extra headers (which may replace the content type). */
export function post(body: RequestInit["body"], headers: Record<string, string> = {}): RequestInit {
  const init = { method: "POST", body: body ?? null, headers: { "content-type": "application/json", ...headers } };
  // Node needs duplex "half" to send a stream as a request body.
  return { ...init, ...{ duplex: "half" } };
}

/** A request body that records whether anyone read it. */
export function watchedBody(text: string): { body: ReadableStream<Uint8Array>; pulled: () => boolean } {
  let pulled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulled = true;
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
      // highWaterMark 0: nothing is pulled until someone reads.
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => pulled };
}
