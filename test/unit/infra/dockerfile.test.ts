/**
 * No container engine runs where the tests run, so the image recipe is checked statically: multi-stage, a Node 24
 * base, a non-root user, production dependencies only, only the files the build needs, the bundle built by the
 * project's own script and nothing but it in the image, no build arguments or secrets, and the same command as
 * `npm start`.
 */
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Dockerfile instructions, comments dropped and `\` continuations joined. */
function parseInstructions(text: string): Instruction[] {
  const logical = text
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return logical.map((line) => {
    const [keyword = "", ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
  });
}

function splitStages(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [image = "", as, name] = instruction.args.split(/\s+/);
      stages.push({ image, ...(as?.toUpperCase() === "AS" && name ? { name } : {}), instructions: [] });
    } else {
      expect(stages.length, `${instruction.keyword} before any FROM`).toBeGreaterThan(0);
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** The source paths of a COPY (flags such as --from dropped), and its --from stage if any. */
function copySources(instruction: Instruction): { from?: string; sources: string[] } {
  const parts = instruction.args.split(/\s+/);
  const from = parts.find((part) => part.startsWith("--from="))?.slice("--from=".length);
  const paths = parts.filter((part) => !part.startsWith("--"));
  return { ...(from === undefined ? {} : { from }), sources: paths.slice(0, -1) };
}

const instructionsOf = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

/** What the image is built from: package files, the TypeScript sources and settings, and the bundle script. */
const BUILD_CONTEXT = [
  "functions",
  "infra/node/build.ts",
  "infra/node/bundle-function.ts",
  "infra/repo-root.ts",
  "package-lock.json",
  "package.json",
  "shared",
  "tsconfig.json",
];

let instructions: Instruction[];
let stages: Stage[];
let final: Stage;
let startScript: string;
let dockerignore: string[];

beforeAll(async () => {
  const text = await readFile(new URL("../../../infra/node/Dockerfile", import.meta.url), "utf8");
  instructions = parseInstructions(text);
  stages = splitStages(instructions);
  final = stages.at(-1)!;
  const pkg = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
  startScript = pkg.scripts["start"] ?? "";
  dockerignore = (await readFile(new URL("../../../infra/node/Dockerfile.dockerignore", import.meta.url), "utf8"))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
});

describe("infra/node/Dockerfile", () => {
  it("is multi-stage: dependencies installed in a named stage, copied into the final one", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const named = stages.slice(0, -1).map((stage) => stage.name);
    const fromStages = instructionsOf(final, "COPY").map(copySources).flatMap((copy) => (copy.from === undefined ? [] : [copy.from]));
    expect(fromStages.length).toBeGreaterThan(0);
    for (const from of fromStages) expect(named).toContain(from);
  });

  it("builds every stage on a Node 24 image (node:24-slim or distroless nodejs24)", () => {
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) expect(stage.image).toMatch(/^(docker\.io\/(library\/)?)?node:24(\.\d+){0,2}-slim(@sha256:[0-9a-f]{64})?$|^gcr\.io\/distroless\/nodejs24-debian\d+(:[\w.-]+)?(@sha256:[0-9a-f]{64})?$/);
  });

  it("installs production dependencies only, with the lock file", () => {
    const runs = stages.flatMap((stage) => instructionsOf(stage, "RUN")).map((run) => run.args);
    expect(runs.some((run) => /\bnpm ci\b/.test(run) && /--omit=dev\b/.test(run))).toBe(true);
    expect(runs.some((run) => /\bnpm (install|i)\b/.test(run))).toBe(false);
  });

  it("runs as a non-root user in the final stage", () => {
    const users = instructionsOf(final, "USER").map((user) => user.args.split(":")[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(["root", "0", ""]).not.toContain(users.at(-1));
  });

  it("copies only package*.json, tsconfig.json, functions/, shared/ and the bundle script from the build context", () => {
    const fromContext = stages.flatMap((stage) => instructionsOf(stage, "COPY").map(copySources)).filter((copy) => copy.from === undefined);
    const sources = new Set(fromContext.flatMap((copy) => copy.sources).map((source) => source.replace(/^\.\//, "").replace(/\/$/, "")));
    expect([...sources].sort()).toEqual(BUILD_CONTEXT);
    expect(instructions.some((i) => i.keyword === "ADD")).toBe(false);
  });

  it("builds the bundle with the project's own script in a build stage", () => {
    const runs = stages.slice(0, -1).flatMap((stage) => instructionsOf(stage, "RUN")).map((run) => run.args);
    expect(runs).toContain("node infra/node/build.ts");
  });

  it("puts nothing in the final image but the bundle folder: no node_modules, no sources, no npm", () => {
    expect(instructionsOf(final, "RUN")).toEqual([]);
    const copies = instructionsOf(final, "COPY").map(copySources);
    expect(copies).toEqual([{ from: stages.at(-2)?.name, sources: ["/app/dist/node/"] }]);
  });

  it("takes no build arguments and bakes in no secret", () => {
    expect(instructions.filter((i) => i.keyword === "ARG")).toEqual([]);
    const envNames = instructions.filter((i) => i.keyword === "ENV").map((i) => i.args.split(/[=\s]/)[0] ?? "");
    for (const name of envNames) expect(name).not.toMatch(/TOKEN|SECRET|KEY|PASSWORD|KUBECONFIG|CALLER_AUTH/i);
    const text = instructions.map((i) => `${i.keyword} ${i.args}`).join("\n");
    expect(text).not.toMatch(/\.npmrc|kubeconfig|\.pem\b|\.key\b|_authToken|--mount=type=secret/i);
  });

  it("exposes the default PORT and runs the same command as npm start, in exec form", () => {
    expect(instructionsOf(final, "EXPOSE").map((e) => e.args)).toEqual(["8443"]);
    const cmds = instructionsOf(final, "CMD");
    expect(cmds).toHaveLength(1);
    expect(JSON.parse(cmds[0]!.args)).toEqual(startScript.split(" "));
    expect(instructionsOf(final, "ENTRYPOINT")).toEqual([]);
  });

  it("sends only what it copies as the build context (Dockerfile.dockerignore)", () => {
    expect(dockerignore[0]).toBe("*");
    expect(dockerignore.slice(1).map((line) => line.replace(/^!/, "").replace(/\/$/, "")).sort()).toEqual(BUILD_CONTEXT);
    expect(dockerignore.slice(1).every((line) => line.startsWith("!"))).toBe(true);
  });
});
