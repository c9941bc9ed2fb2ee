/** Request inits and bodies for tests that call `app.request` directly. */

/** A POST of `body` as JSON with extra headers. */
export function post(body: RequestInit["body"], headers: Record<string, string> = {}): RequestInit {
  return { method: "POST", body: body ?? null, headers: { "content-type": "application/json", ...headers } };
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
