/** The credential cache's refresh reports (shared/observer.ts): one per refresh, and on every review that waited for it. */
import { describe, expect, it } from "vitest";
import { createCredentialCache } from "../../../../shared/credentials/cache.ts";
import type { Credential } from "../../../../shared/credentials/token-source.ts";
import type { CallTally, RefreshOutcome } from "../../../../shared/observer.ts";

/** A tally at zero, as the review handler starts one. */
const createCallTally = (): CallTally => ({ kubeRequests: 0, cacheHits: 0, cacheMisses: 0 });

describe("createCredentialCache onRefresh", () => {
  it("counts a refresh shared by concurrent callers once, and marks each caller's tally", async () => {
    const outcomes: RefreshOutcome[] = [];
    let release: (credential: Credential) => void = () => undefined;
    const cache = createCredentialCache({
      describe: "test",
      shareInFlight: true,
      load: () => new Promise<Credential>((resolve) => (release = resolve)),
      onRefresh: (outcome) => outcomes.push(outcome),
    });
    const [first, second, third] = [createCallTally(), createCallTally(), createCallTally()];
    const waiting = [cache.getCredential({ tally: first }), cache.getCredential({ tally: second })];
    release({ token: "t" });
    await Promise.all(waiting);
    await cache.getCredential({ tally: third });
    expect(outcomes).toEqual(["success"]);
    expect(first.tokenRefresh).toBe("success");
    expect(second.tokenRefresh).toBe("success");
    // Served from the cache: no refresh to report.
    expect(third.tokenRefresh).toBeUndefined();
  });

  it("reports a failed refresh, and not the backoff that follows it", async () => {
    const outcomes: RefreshOutcome[] = [];
    const cache = createCredentialCache({
      describe: "test",
      shareInFlight: false,
      load: () => Promise.reject(new Error("boom")),
      onRefresh: (o) => outcomes.push(o),
    });
    const tally = createCallTally();
    await expect(cache.getCredential({ tally })).rejects.toThrow("test failed");
    await expect(cache.getCredential()).rejects.toThrow(/not retried/);
    expect(outcomes).toEqual(["failure"]);
    expect(tally.tokenRefresh).toBe("failure");
  });
});
