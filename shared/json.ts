/** `text` parsed as JSON, or undefined (which JSON never decodes to) when it is not JSON: HTML from a proxy, a PEM key. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
