import { readFile, writeFile } from "node:fs/promises";
import { createTestPki } from "../../support/test-pki.ts";

/**
 * Writes the kubeconfig `text` (an example, or `file` itself when omitted) to `file` with the cluster CA filled in,
 * as the guides' kubeconfig step says: `caPem`, or a throw-away test CA's.
 */
export async function writeWithClusterCa(file: string, text?: string, caPem?: string): Promise<void> {
  const pki = caPem === undefined ? await createTestPki() : undefined;
  const data = Buffer.from(caPem ?? pki!.caPem).toString("base64");
  const example = text ?? (await readFile(file, "utf8"));
  await writeFile(file, example.replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${data}`));
  await pki?.cleanup();
}
