/** Inputs the fuzzer and the load probes found, pinned as plain cases. */
import { describe, expect, it } from "vitest";
import { createTestApp, postReview } from "../../support/app.ts";
import { createFakeGmsaClient, type FakeGmsaClientOptions } from "../../support/fake-gmsa-client.ts";
import { buildReview, type ReviewOptions } from "../../support/reviews.ts";
import { mustRefuse, type OracleOptions } from "./oracle.ts";
import { CREDSPECS } from "./world.ts";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";

const WEBAPP1 = JSON.stringify(CREDSPECS.get("webapp1"));

/** `object` (a Pod in team-a, uid u1) sent to `fn` of an app knowing webapp1; team-a's default may use it and "missing". */
async function send(
  fn: "expand" | "authorize",
  object: unknown,
  options: ReviewOptions = {},
  fail?: FakeGmsaClientOptions["fail"],
) {
  const gmsa = createFakeGmsaClient({
    credspecs: { webapp1: CREDSPECS.get("webapp1") },
    allowed: ["webapp1", "missing"].map((credSpecName) => ({
      namespace: "team-a",
      serviceAccount: "default",
      credSpecName,
    })),
    ...(fail === undefined ? {} : { fail }),
  });
  const review = buildReview(object, { uid: "u1", namespace: "team-a", ...options });
  return (await postReview(createTestApp({ gmsa }).app, fn, review)).response;
}

const gmsa = (name: string, contents?: string) => ({
  securityContext: {
    windowsOptions: {
      gmsaCredentialSpecName: name,
      ...(contents === undefined ? {} : { gmsaCredentialSpec: contents }),
    },
  },
});

describe("the oracle's rules, pinned", () => {
  /** The oracle on a create in team-a by service account "web" whose container has webapp1 with `contents`. */
  const judged = (contents: string, requestingUser?: OracleOptions["requestingUser"], username?: string) => {
    const object = { spec: { serviceAccountName: "web", containers: [{ name: "web", ...gmsa("webapp1", contents) }] } };
    const userInfo = username === undefined ? {} : { userInfo: { username } };
    const request = { kind: { group: "", kind: "Pod" }, operation: "CREATE", namespace: "team-a", ...userInfo, object };
    return mustRefuse({ request }, { maxCredSpecNames: 16, ...(requestingUser ? { requestingUser } : {}) });
  };

  it("accepts the credspec's value respelled (1.0, 25e-1, escapes, white space) and refuses what only looks alike", () => {
    for (const text of [
      WEBAPP1.replace("[1,", "[1.0,"),
      WEBAPP1.replace("2.5,", "25e-1,"),
      WEBAPP1.replace('"ActiveDirectory"', '"\\u0041ctiveDirectory"'),
      `${WEBAPP1}\n`,
    ]) {
      expect(judged(text), text).toBeUndefined();
    }
    for (const text of [
      WEBAPP1.replace("[1,", '["1",'),
      WEBAPP1.replace('"Empty":{}', '"Empty":[]'),
      `${WEBAPP1}x`,
      `${WEBAPP1}{}`,
      WEBAPP1.slice(0, -1),
    ]) {
      expect(judged(text), text).toMatch(/contents differ from webapp1/);
    }
  });

  it("with REVIEW_REQUESTING_USER=always, refuses a create whose requester is missing or may not use the credspec", () => {
    expect(judged(WEBAPP1, "always", "alice")).toBeUndefined();
    expect(judged(WEBAPP1, "always", "mallory")).toMatch(/requester mallory may not use webapp1/);
    expect(judged(WEBAPP1, "always")).toMatch(/needs a requesting user/);
    expect(judged(WEBAPP1, "ephemeral", "mallory")).toBeUndefined();
  });

  it("refuses contents whose first copy of a repeated key names another gMSA (the app's 422 is a rules/cases.ts row)", () => {
    const smuggled = `{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"Other"}]},${WEBAPP1.slice(1)}`;
    expect(judged(smuggled)).toMatch(/contents repeat a key/);
  });
});

describe("regressions", () => {
  it("denies an ephemeral container that reuses an existing container's name (400): it hid from the update check", async () => {
    const old = {
      spec: { containers: [{ name: "web" }], ephemeralContainers: [{ name: "debug", ...gmsa("webapp1", WEBAPP1) }] },
    };
    const object = structuredClone(old);
    object.spec.ephemeralContainers.push({ name: "debug", ...gmsa("other", "{}") });
    const response = await send("authorize", object, {
      operation: "UPDATE",
      subResource: "ephemeralcontainers",
      oldObject: old,
    });
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 400 });
    expect(response.status?.message).toContain('container name "debug" is used more than once');
  });

  it("answers a pod with 20,000 containers naming a missing credspec and as many annotations (no quadratic work)", async () => {
    const count = 20_000;
    const containers = Array.from({ length: count }, (_, i) => ({ name: `c${i}`, ...gmsa("missing") }));
    const annotations = Object.fromEntries(
      containers.map((c) => [`${c.name}.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name`, "missing"]),
    );
    const object = { metadata: { annotations }, spec: { containers } };
    expect((await send("expand", object)).status?.code).toBe(422);
    expect((await send("authorize", object)).status?.code).toBe(422);
  });

  it("fails closed: our own bug is a 500 denial naming the uid, never its message or a stack", async () => {
    const bug = new TypeError("cannot read properties of undefined (reading 'token-abc')");
    const buggy = (call: string) => (call === "getCredSpecContents" ? bug : undefined);
    const named = { spec: { containers: [{ name: "web", ...gmsa("webapp1") }] } };
    const inlined = { spec: { containers: [{ name: "web", ...gmsa("webapp1", WEBAPP1) }] } };
    for (const fn of FUNCTION_NAMES) {
      const response = await send(fn, fn === "expand" ? named : inlined, {}, buggy);
      expect(response.allowed).toBe(false);
      expect(response.status?.code).toBe(500);
      expect(response.status?.message).toBe(
        'container "web": internal error in the GMSA webhook while checking credspec "webapp1" (its log has the cause under request uid u1)',
      );
    }
  });
});
