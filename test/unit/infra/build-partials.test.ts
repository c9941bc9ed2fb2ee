import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { removeDeadPartials } from "../../../infra/build/tools/go-build.ts";
import { tempDir } from "../../support/temp-dir.ts";

it("removes what a killed build left behind, and keeps a running build's partial and other binaries", async () => {
  const dir = await tempDir("gmsa-partials-");
  // Above Linux's largest pid (2^22): no such process.
  const gone = 2 ** 22 + 1;
  const files = [
    "kubelet",
    `kubelet.partial-${gone}`,
    `kubelet.partial-${process.pid}`,
    `kube-scheduler.partial-${gone}`,
  ];
  for (const file of files) await writeFile(path.join(dir, file), "");
  await removeDeadPartials(path.join(dir, "kubelet"));
  expect((await readdir(dir)).sort()).toEqual(
    ["kube-scheduler.partial-" + gone, "kubelet", `kubelet.partial-${process.pid}`].sort(),
  );
});
