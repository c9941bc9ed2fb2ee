/** The requester's text answers: what a function's /readyz sends through the API server's service proxy. */
import { describe, expect, it } from "vitest";
import { createKubeRequester, type KubeRequest } from "../../../../shared/kube/request.ts";
import { createFakeFetch, status } from "../../../support/fake-fetch.ts";

const readyz = (text?: boolean): KubeRequest => ({
  method: "GET",
  path: "/api/v1/namespaces/gmsa/services/https:gmsa-authorize:443/proxy/readyz",
  resource: "gmsacredentialspecs",
  what: "GET readyz",
  signal: new AbortController().signal,
  ...(text === undefined ? {} : { text }),
});

describe("createKubeRequester with text answers", () => {
  it("keeps a success's text as it came when the call asks for text", async () => {
    const { fetch } = createFakeFetch(
      () => new Response("ok", { status: 200, headers: { "Content-Type": "text/plain" } }),
    );
    const answer = await createKubeRequester({ server: "https://k", fetch })(readyz(true));
    expect([answer.status, answer.body]).toEqual([200, "ok"]);
  });

  it("still needs a JSON body on success for every other call", async () => {
    const { fetch } = createFakeFetch(() => new Response("ok", { status: 200 }));
    await expect(createKubeRequester({ server: "https://k", fetch })(readyz())).rejects.toThrow(
      "GET readyz: API server answered 200 without a JSON body",
    );
  });

  it("reads the API server's own error as its Status, and the function's refusal as its text", async () => {
    const { fetch } = createFakeFetch((_call, index) =>
      index === 0 ? status(503, "ServiceUnavailable") : new Response("not ready: credentials", { status: 503 }),
    );
    const apiServer = await createKubeRequester({
      server: "https://k",
      fetch: createFakeFetch(() => status(503, "ServiceUnavailable")).fetch,
      retryDelayMs: 0,
    })(readyz(true));
    expect(apiServer.body).toMatchObject({ kind: "Status", reason: "ServiceUnavailable" });
    // A GET is retried once on 503: the second answer is the function's own.
    const function503 = await createKubeRequester({ server: "https://k", fetch, retryDelayMs: 0 })(readyz(true));
    expect([function503.status, function503.body]).toEqual([503, "not ready: credentials"]);
  });
});
