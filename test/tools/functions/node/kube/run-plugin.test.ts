import { readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runPlugin } from "../../../../../functions/node/kube/run-plugin.ts";
import { eventually, isAlive, pluginPath } from "../../../../support/exec-plugins.ts";
import { tempDir } from "../../../../support/temp-dir.ts";

const execInfo = JSON.stringify({
  apiVersion: "client.authentication.k8s.io/v1",
  kind: "ExecCredential",
  spec: { interactive: false },
});
const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  KUBERNETES_EXEC_INFO: execInfo,
  ...extra,
});

describe("runPlugin", () => {
  it("runs the command with an argument array and returns exit code, stdout and stderr", async () => {
    const result = await runPlugin(process.execPath, [pluginPath("token"), "arg with spaces; $(not a shell)"], env(), {
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ outcome: "exited", exitCode: 0, stderr: "" });
    expect(JSON.parse((result as { stdout: string }).stdout)).toMatchObject({ status: { token: "token-1" } });
  });

  // Exactly the given environment reaches the plugin: shared/credentials/exec-config.test.ts. A missing command by
  // its path, counted as not found: shared/credentials/exec-credential.test.ts.
  it("gives the plugin no stdin: reading it ends at once with nothing", async () => {
    const result = await runPlugin(process.execPath, [pluginPath("read-stdin")], env(), { timeoutMs: 10_000 });
    expect((result as { stdout: string }).stdout).toContain("stdin-bytes-0");
  });

  it("reports a non-zero exit with the stderr tail", async () => {
    const result = await runPlugin(process.execPath, [pluginPath("fail")], env(), { timeoutMs: 10_000 });
    expect(result).toMatchObject({ outcome: "exited", exitCode: 3 });
    expect((result as { stderr: string }).stderr).toContain("the identity provider said no");
  });

  it.each([
    ["the timeout passes", false],
    ["the signal aborts", true],
  ])("kills a hanging plugin and the child it started when %s", async (_when, abort) => {
    const pidFile = path.join(await tempDir(), "child.pid");
    const started = Date.now();
    const result = await runPlugin(
      process.execPath,
      [pluginPath("hang-with-child")],
      env({ PID_FILE: pidFile }),
      abort ? { timeoutMs: 60_000, signal: AbortSignal.timeout(2_000) } : { timeoutMs: 2_000 },
    );
    expect(result).toMatchObject({ outcome: "timeout" });
    expect((result as { stderr: string }).stderr).toContain("waiting for the identity provider");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await eventually(() => !isAlive(Number(readFileSync(pidFile, "utf8"))))).toBe(true);
  });

  describe("finding the command through this process's PATH, as client-go does, not the plugin's env PATH", () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    /** A folder holding an executable `gmsa-fake-plugin` that prints its name and the PATH it was given. */
    async function pluginFolder(name: string): Promise<string> {
      const dir = path.join(await tempDir(), name);
      await mkdir(dir);
      const script = path.join(dir, "gmsa-fake-plugin");
      await writeFile(script, `#!/bin/sh\necho "${name} $PATH"\n`);
      await chmod(script, 0o755);
      return dir;
    }

    it("runs the command found on our PATH, and hands the plugin the PATH its env sets", async () => {
      const ours = await pluginFolder("ours");
      const theirs = await pluginFolder("theirs");
      vi.stubEnv("PATH", ours);
      const result = await runPlugin("gmsa-fake-plugin", [], env({ PATH: theirs }), { timeoutMs: 10_000 });
      expect(result).toMatchObject({ outcome: "exited", exitCode: 0, stdout: `ours ${theirs}\n` });
    });

    it("reports not-found when only the plugin's env PATH holds the command", async () => {
      const theirs = await pluginFolder("theirs");
      vi.stubEnv("PATH", "/nonexistent");
      expect(await runPlugin("gmsa-fake-plugin", [], env({ PATH: theirs }), { timeoutMs: 10_000 })).toEqual({
        outcome: "not-found",
      });
    });

    it("runs a command given as a path without a PATH search, and says when it cannot be executed", async () => {
      const ours = await pluginFolder("ours");
      vi.stubEnv("PATH", "/nonexistent");
      const script = path.join(ours, "gmsa-fake-plugin");
      expect(await runPlugin(script, [], env({ PATH: "/bin" }), { timeoutMs: 10_000 })).toMatchObject({
        outcome: "exited",
        exitCode: 0,
      });
      await chmod(script, 0o644);
      expect(await runPlugin(script, [], env(), { timeoutMs: 10_000 })).toEqual({
        outcome: "spawn-error",
        message: "EACCES",
      });
    });

    it("refuses a command found through a relative PATH entry (Go's exec.ErrDot)", async () => {
      const ours = await pluginFolder("ours");
      vi.stubEnv("PATH", path.relative(process.cwd(), ours));
      const result = await runPlugin("gmsa-fake-plugin", [], env({ PATH: ours }), { timeoutMs: 10_000 });
      expect(result.outcome).toBe("spawn-error");
      expect((result as { message: string }).message).toContain("relative PATH entry");
    });
  });
});
