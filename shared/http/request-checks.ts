/** Whether a Content-Type is JSON, parameters such as a proxy's `charset=utf-8` allowed (else 415). */
export function isJsonContentType(value: string | undefined): boolean {
  return value?.split(";")[0]?.trim().toLowerCase() === "application/json";
}
