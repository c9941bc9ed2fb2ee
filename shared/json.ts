/**
 * `text` parsed as JSON, or undefined when it is not JSON (HTML from a proxy, a plain-text 404, a PEM key). JSON
 * itself never decodes to undefined, so the two cannot be confused.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
