/**
 * Fast checks for the common case of review.ts: a review and pod that its zod schemas accept as they are. zod
 * copies every object it checks (looseObject returns a new object) and was the largest cost of our own code per
 * review (test/bench/RESULTS.md, section G). These checks accept only values the schemas accept unchanged; anything
 * else (a wrong type, a field set to undefined, unknown keys where zod strips them) answers false, and the caller
 * runs zod, which finds and names the problem as before.
 */
import { ADMISSION_VERSIONS } from "./review.ts";

const OPERATIONS: ReadonlySet<unknown> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Absent, or present with the type: a key present with the value undefined goes to zod. */
function optionalOf(fields: Fields, key: string, type: "string" | "boolean"): boolean {
  const value = fields[key];
  return value === undefined ? !(key in fields) : typeof value === type;
}

function optionalObject(fields: Fields, key: string, check: (value: Fields) => boolean): boolean {
  const value = fields[key];
  return value === undefined ? !(key in fields) : isObject(value) && check(value);
}

function everyValue(fields: Fields, check: (value: unknown) => boolean): boolean {
  for (const key in fields) if (!check(fields[key])) return false;
  return true;
}

const isStringArray = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === "string");

function isUserInfo(user: Fields): boolean {
  if (!optionalOf(user, "username", "string") || !optionalOf(user, "uid", "string")) return false;
  if (user["groups"] === undefined ? "groups" in user : !isStringArray(user["groups"])) return false;
  return optionalObject(user, "extra", (extra) => everyValue(extra, isStringArray));
}

/** GroupVersionKind is a plain z.object, which strips unknown keys: only the three keys pass unchanged. */
function isGroupVersionKind(kind: unknown): boolean {
  if (!isObject(kind) || Object.keys(kind).length !== 3) return false;
  return typeof kind["group"] === "string" && typeof kind["version"] === "string" && typeof kind["kind"] === "string";
}

/** True when AdmissionReviewSchema accepts `body` unchanged. */
export function isPlainAdmissionReview(body: unknown): boolean {
  // Read at call time: review.ts imports this module, so its constants are not there yet while this one loads.
  const versions: readonly unknown[] = ADMISSION_VERSIONS;
  if (!isObject(body) || !versions.includes(body["apiVersion"]) || body["kind"] !== "AdmissionReview") return false;
  const request = body["request"];
  if (!isObject(request)) return false;
  const uid = request["uid"];
  if (typeof uid !== "string" || uid.length < 1 || uid.length > 256) return false;
  if (!isGroupVersionKind(request["kind"]) || !OPERATIONS.has(request["operation"])) return false;
  for (const key of ["subResource", "name", "namespace"]) if (!optionalOf(request, key, "string")) return false;
  return optionalOf(request, "dryRun", "boolean") && optionalObject(request, "userInfo", isUserInfo);
}

function isWindowsOptions(options: Fields): boolean {
  for (const key of ["gmsaCredentialSpecName", "gmsaCredentialSpec", "runAsUserName"]) if (!optionalOf(options, key, "string")) return false;
  return optionalOf(options, "hostProcess", "boolean");
}

const isSecurityContext = (context: Fields): boolean => optionalObject(context, "windowsOptions", isWindowsOptions);

function isContainerList(fields: Fields, key: string): boolean {
  const list = fields[key];
  if (list === undefined) return !(key in fields);
  if (!Array.isArray(list)) return false;
  return list.every((c) => isObject(c) && typeof c["name"] === "string" && optionalObject(c, "securityContext", isSecurityContext));
}

function isMetadata(metadata: Fields): boolean {
  for (const key of ["name", "generateName", "namespace"]) if (!optionalOf(metadata, key, "string")) return false;
  return optionalObject(metadata, "annotations", (annotations) => everyValue(annotations, (v) => typeof v === "string"));
}

function isSpec(spec: Fields): boolean {
  if (!optionalOf(spec, "serviceAccountName", "string") || !optionalOf(spec, "hostname", "string")) return false;
  if (!optionalObject(spec, "securityContext", isSecurityContext)) return false;
  return isContainerList(spec, "containers") && isContainerList(spec, "initContainers") && isContainerList(spec, "ephemeralContainers");
}

/** True when PodSchema accepts `object` unchanged. */
export function isPlainPod(object: unknown): boolean {
  return isObject(object) && optionalObject(object, "metadata", isMetadata) && optionalObject(object, "spec", isSpec);
}
