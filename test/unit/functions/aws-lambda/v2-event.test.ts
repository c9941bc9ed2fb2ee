/**
 * Lambda's payload 2.0 events go straight to the HTTP surface (v2-event.ts); every other payload through Hono's
 * adapter. The same requests as payload 2.0 events must get the same result both ways.
 */
import type { APIGatewayProxyResult, LambdaContext } from "hono/aws-lambda";
import { describe, expect, it } from "vitest";
import { answerV2Event } from "../../../../functions/aws-lambda/v2-event.ts";
import { honoLambdaHandler } from "../../../../functions/aws-lambda/hono-handler.ts";
import { createSurface } from "../../../../functions/surface.ts";
import type { CallerAuthOptions } from "../../../../shared/http/caller-auth.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { httpProbes, PARITY_SECRET, PARITY_TOKEN } from "../../../support/http-probes.ts";
import { functionUrlEvent, type EventOptions } from "../../../support/lambda-events.ts";

const context = {} as LambdaContext;

describe.each<{ name: string; callerAuth: CallerAuthOptions; auth: [string, string][]; prefix: (fn: string) => string }>([
  { name: "bearer", callerAuth: { mode: "bearer", tokens: [PARITY_TOKEN] }, auth: [["authorization", `Bearer ${PARITY_TOKEN}`]], prefix: (fn) => `/${fn}` },
  { name: "path", callerAuth: { mode: "path", secrets: [PARITY_SECRET] }, auth: [], prefix: (fn) => `/${fn}/${PARITY_SECRET}` },
])("payload 2.0 straight to the surface and through Hono's adapter, CALLER_AUTH=$name", ({ callerAuth, auth, prefix }) => {
  const { deps } = createCallerAuthTestApp(callerAuth);
  const surface = createSurface(deps);
  const hono = honoLambdaHandler(deps, surface);
  const direct = async (event: ReturnType<typeof functionUrlEvent>): Promise<APIGatewayProxyResult> => {
    const answer = answerV2Event(event, surface, deps.functions, callerAuth.mode === "path");
    if (answer === undefined) throw new Error("not read as a payload 2.0 event");
    return answer;
  };
  // Lambda events carry a body or none (no chunked transfer); repeated headers arrive joined, as API Gateway joins them.
  const probes = httpProbes(auth, prefix).filter((probe) => probe.chunked !== true);

  it.each(probes.flatMap((probe) => [false, true].map((base64) => [`${probe.method} ${probe.path.slice(0, 60)}${base64 ? " (base64)" : ""}`, probe, base64] as const)))(
    "answer %s alike",
    async (_name, probe, base64) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of probe.headers ?? []) headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      const options = { method: probe.method as EventOptions["method"], path: probe.path, headers, ...(probe.body === undefined ? {} : { body: probe.body }), base64 };
      const [mine, theirs] = [await direct(functionUrlEvent(options)), await hono(functionUrlEvent(options), context)];
      expect(mine).toEqual(theirs);
    },
  );

  it("answers the first probe, an allowed review, with 200", async () => {
    const [first] = probes;
    const result = await direct(functionUrlEvent({ method: "POST", path: first!.path, headers: Object.fromEntries(first!.headers ?? []), body: first!.body! }));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ response: { allowed: true } });
  });
});
