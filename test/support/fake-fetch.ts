/** An in-memory KubeFetch that records calls and answers from a script. */
import { createStaticTokenSource } from "../../shared/credentials/token-source.ts";
import { createKubeGmsaClient, type KubeGmsaClientOptions } from "../../shared/kube/client.ts";
import type { KubeFetch } from "../../shared/kube/request.ts";
import { statusBody } from "./kube-server.ts";

export interface FakeCall {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** Returns a Response, throws for a transport error, or returns "hang" to wait for the signal. */
export type FakeScript = (call: FakeCall, index: number) => Response | "hang" | Promise<Response | "hang">;

/** JSON response helper. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** A Status answer as kube-apiserver sends it. */
export function status(code: number, reason: string, details?: Record<string, unknown>): Response {
  return json(code, statusBody(code, reason, details));
}

export function createFakeFetch(script: FakeScript): { fetch: KubeFetch; calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  const fetch: KubeFetch = async (url, init) => {
    const call: FakeCall = {
      url,
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const answer = await script(call, calls.length - 1);
    if (answer !== "hang") return answer;
    return new Promise<Response>((_resolve, reject) => {
      init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
    });
  };
  return { fetch, calls };
}

/** The kube client over a fake fetch answering from `script`: https://kube.example, static token "t", then `options`. */
export function createFakeKubeClient(script: FakeScript, options: Partial<KubeGmsaClientOptions> = {}) {
  const fake = createFakeFetch(script);
  const client = createKubeGmsaClient({
    server: "https://kube.example",
    fetch: fake.fetch,
    tokenSource: createStaticTokenSource({ token: "t" }),
    ...options,
  });
  return { client, calls: fake.calls };
}
