/** The requester's text answers: what a function's /readyz sends through the API server's service proxy. */
import { describe, expect, it } from "vitest";
import { createKubeRequester, type KubeRequest } from "../../../../shared/kube/request.ts";
import { createFakeFetch, status, type FakeScript } from "../../../support/fake-fetch.ts";

const readyz = (text?: boolean): KubeRequest => ({
  method: "GET",
  path: "/api/v1/namespaces/gmsa/services/https:gmsa-authorize:443/proxy/readyz",
  resource: "gmsacredentialspecs",
  what: "GET readyz",
  signal: new AbortController().signal,
  ...(text === undefined ? {} : { text }),
});

/** A requester whose fetch answers with `script`. */
const requester = (script: FakeScript) =>
  createKubeRequester({ server: "https://k", fetch: createFakeFetch(script).fetch, retryDelayMs: 0 });

describe("createKubeRequester with text answers", () => {
  it("keeps a success's text as it came when the call asks for text", async () => {
    const text = () => new Response("ok", { status: 200, headers: { "Content-Type": "text/plain" } });
    const answer = await requester(text)(readyz(true));
    expect([answer.status, answer.body]).toEqual([200, "ok"]);
  });

  it("still needs a JSON body on success for every other call", async () => {
    await expect(requester(() => new Response("ok", { status: 200 }))(readyz())).rejects.toThrow(
      "GET readyz: API server answered 200 without a JSON body",
    );
  });

  it("reads the API server's own error as its Status, and the function's refusal as its text", async () => {
    const apiServer = await requester(() => status(503, "ServiceUnavailable"))(readyz(true));
    expect(apiServer.body).toMatchObject({ kind: "Status", reason: "ServiceUnavailable" });
    // A GET is retried once on 503: the second answer is the function's own.
    const function503 = await requester((_call, index) =>
      index === 0 ? status(503, "ServiceUnavailable") : new Response("not ready: credentials", { status: 503 }),
    )(readyz(true));
    expect([function503.status, function503.body]).toEqual([503, "not ready: credentials"]);
  });
});
