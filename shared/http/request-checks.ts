/**
 * Whether a Content-Type is JSON. Parameters such as `charset=utf-8` are fine: the API server sends
 * `application/json`, proxies sometimes add a charset. Anything else is refused with 415.
 */
export function isJsonContentType(value: string | undefined): boolean {
  return value?.split(";")[0]?.trim().toLowerCase() === "application/json";
}
