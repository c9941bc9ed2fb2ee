/** What a tier's global setup prepared for the selected files (test/tiers.ts), read inside a test file. */
import { inject } from "vitest";
import type { DebianAwsCli } from "../../infra/local/awscli.ts";
import type { ImageInfo } from "../../infra/build/node/image.ts";

function missing(name: string): Error {
  return new Error(`${name} was not prepared for this test file: list it among the file's needs in test/tiers.ts`);
}

/** The path of a program the tier built (`helm`, `actionlint`). */
export function preparedProgram(name: "helm" | "actionlint"): string {
  const path = inject(name);
  if (!path) throw missing(name);
  return path;
}

/** The image the tools tier built. */
export function preparedImage(): ImageInfo {
  const image = inject("image");
  if (!image) throw missing("the image");
  return image;
}

/** Debian's awscli, which the tools tier installed. */
export function preparedAwsCli(): DebianAwsCli {
  const cli = inject("awscli");
  if (!cli) throw missing("Debian's awscli");
  return cli;
}
