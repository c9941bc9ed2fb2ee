/** What the CLI lets reach a terminal: no path secret, no control character from the cluster or a file. */
import { describe, expect, it } from "vitest";
import { command, EXIT_OK, safeText } from "../../../cli/io.ts";
import { fakeIo } from "../../support/fake-io.ts";

describe("safeText", () => {
  it("masks a path secret after /expand or /authorize in any URL, keeping the query", () => {
    const message = 'failed calling webhook "x": Post "https://gmsa.example.com/expand/s3cr3t-Path_1?timeout=10s": EOF';
    expect(safeText(message, false)).toBe(
      'failed calling webhook "x": Post "https://gmsa.example.com/expand/***?timeout=10s": EOF',
    );
    expect(safeText("https://h/authorize/abc def", false)).toBe("https://h/authorize/*** def");
    expect(safeText("https://h/expand?timeout=10s", false)).toBe("https://h/expand?timeout=10s");
  });

  it("writes every control character but newline and tab as \\xNN or \\u00NN, escape sequences included", () => {
    expect(safeText("web\u001b[2J\u001b]0;pwned\u0007app\r\n\tok\u009b1m\u007f", false)).toBe(
      "web\\x1b[2J\\x1b]0;pwned\\x07app\\x0d\n\tok\\u009b1m\\u007f",
    );
    // -o json: JSON.stringify escapes U+0000 to U+001F itself and leaves U+007F to U+009F raw; both stay valid JSON.
    const value = { name: "a\u0085b\u001bc\u009bd" };
    const written = safeText(JSON.stringify(value), false);
    expect([...written].every((char) => char >= " " && (char < "\u007f" || char > "\u009f"))).toBe(true);
    expect(JSON.parse(written)).toEqual(value);
    expect(safeText("Ünïcode ✓", false)).toBe("Ünïcode ✓");
  });

  it("keeps its own five colour codes only when painting for a terminal", () => {
    const painted = "\u001b[32mok\u001b[0m \u001b[1mbold\u001b[0m \u001b[31mbad\u001b[0m \u001b[33mwarn\u001b[0m";
    expect(safeText(painted, true)).toBe(painted);
    expect(safeText(painted, false)).toBe(painted.replaceAll("\u001b", "\\x1b"));
    expect(safeText("\u001b[41mred background\u001b[0m", true)).toBe("\\x1b[41mred background\u001b[0m");
  });
});

describe("every command writes through safeText", () => {
  const echo = command({
    name: "echo",
    options: {},
    usage: "Usage: gmsa-webhooks echo <text>\n",
    run: (line, io) => {
      io.stdout(`${line.positionals.join(" ")}\n`);
      io.stderr(`${line.positionals.join(" ")}\n`);
      return Promise.resolve(EXIT_OK);
    },
  });

  it("on stdout and stderr, and in the problems of a wrong command line", async () => {
    const io = fakeIo();
    await echo(["container\u001b[1A\u001b[2K", "https://h/expand/secret"], io);
    expect(io.out).toBe("container\\x1b[1A\\x1b[2K https://h/expand/***\n");
    expect(io.err).toBe(io.out);
    const wrong = fakeIo();
    await echo(["--evil\u001b[2J"], wrong);
    expect(wrong.err).toContain("--evil\\x1b[2J");
    expect(wrong.err).not.toContain("\u001b");
  });
});
