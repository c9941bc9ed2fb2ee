/**
 * An independent judge of "authorize must refuse this review", written from docs/security.md (Where GMSA references live, Status codes) and the
 * fuzzed world, sharing no code with shared/policy. It reads the review exactly as decoded (own properties only,
 * nothing inherited) and answers with the first reason found, or undefined when refusing is not required.
 * Where the design allows by intent (kinds other than Pod, DELETE, CONNECT) it never requires a refusal.
 */
import { CREDSPECS, isAllowed, isUserAllowed } from "./world.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

/** An alpha annotation key: the pod's, or a container's (group 1); group 2 set for a name. */
const GMSA_KEY = /^(?:pod|(.+)\.container)\.alpha\.windows\.kubernetes\.io\/gmsa-credential-spec(-name)?$/s;
const LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

/** Thrown inside the oracle when the pod cannot be read along a GMSA path: such a pod must be refused. */
class Unreadable extends Error {}

interface Ref {
  where: string;
  name: string | undefined;
  contents: string | undefined;
}

interface Container {
  list: (typeof LISTS)[number];
  name: string;
  options: Obj | undefined;
}

export interface OracleOptions {
  maxCredSpecNames: number;
  /**
   * REVIEW_REQUESTING_USER (default `off`): with `ephemeral` the requester must be allowed to use what new ephemeral
   * containers name or inherit; with `always` also everything a pod create names, and every name of an updated pod.
   */
  requestingUser?: "off" | "ephemeral" | "always";
}

/** Whose `use` a judged reference needs: the pod's service account, and the requester when reviewed (undefined: none named). */
interface Subject {
  namespace: string;
  serviceAccount: string;
  requester?: { username: string | undefined } | undefined;
}

/**
 * True when `review` is a CREATE or UPDATE of a Pod that holds a GMSA setting (field or alpha annotation), so an
 * allowed answer went through the GMSA rules rather than past them (other kinds, DELETE, pods without GMSA).
 */
export function holdsGmsaSettings(review: unknown): boolean {
  try {
    const pod = podRequestOf(review)?.pod;
    return pod !== undefined && settingsOf(pod, () => false).size > 0;
  } catch (error) {
    if (error instanceof Unreadable) return false;
    throw error;
  }
}

/** Why authorize must refuse `review` (decoded JSON), or undefined. */
export function mustRefuse(review: unknown, options: OracleOptions): string | undefined {
  try {
    return judge(review, options);
  } catch (error) {
    if (error instanceof Unreadable) return `unreadable: ${error.message}`;
    throw error;
  }
}

/** The request, its operation and its pod when `review` is a CREATE or UPDATE of a core Pod, else undefined. */
function podRequestOf(review: unknown): { req: Obj; operation: "CREATE" | "UPDATE"; pod: Obj } | undefined {
  const req = asObj(field(asObj(review, "review"), "request") ?? null, "request");
  const kind = asObj(field(req, "kind") ?? null, "kind");
  if (field(kind, "group") !== "" || field(kind, "kind") !== "Pod") return undefined;
  const operation = field(req, "operation");
  if (operation !== "CREATE" && operation !== "UPDATE") return undefined;
  return { req, operation, pod: asObj(field(req, "object") ?? null, "object") };
}

function judge(review: unknown, options: OracleOptions): string | undefined {
  const podRequest = podRequestOf(review);
  if (podRequest === undefined) return undefined;
  const { req, operation, pod } = podRequest;
  const subject = subjectOf(req, pod);

  const mode = options.requestingUser ?? "off";
  // The requester is read only when reviewed: with `off` the app ignores it.
  const requester = mode === "off" ? undefined : { username: requesterOf(req) };

  if (operation === "CREATE")
    return judgeCreate(pod, mode === "always" ? { ...subject, requester } : subject, options, undefined);
  const old = asObj(field(req, "oldObject") ?? null, "oldObject");
  const ephemeral = field(req, "subResource") === "ephemeralcontainers";
  const oldEphemeral = new Set(
    readContainers(old)
      .filter((c) => c.list === "ephemeralContainers")
      .map((c) => c.name),
  );
  const isNew = (c: Container) => ephemeral && c.list === "ephemeralContainers" && !oldEphemeral.has(c.name);
  const change = compareSettings(old, pod, isNew);
  if (change !== undefined) return change;
  if (ephemeral) return judgeCreate(pod, { ...subject, requester }, options, isNew);
  // An update that leaves GMSA settings alone: with `always`, the requester must be allowed every (valid) name.
  if (mode !== "always" || requester === undefined) return undefined;
  for (const { name } of referencesOf(pod)) {
    if (name === undefined || !isDnsSubdomain(name)) continue;
    const problem = judgeRequester(requester, subject.namespace, name, "updated pod");
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The requester's username as the API server sends it; empty means none. */
function requesterOf(req: Obj): string | undefined {
  const userInfo = field(req, "userInfo");
  if (userInfo === undefined) return undefined;
  const username = field(asObj(userInfo, "userInfo"), "username");
  if (username !== undefined && typeof username !== "string") throw new Unreadable("userInfo.username");
  return username === "" ? undefined : username;
}

/** Why the requester may not use `name` (none named, or not allowed), or undefined. */
function judgeRequester(
  requester: { username: string | undefined },
  namespace: string,
  name: string,
  where: string,
): string | undefined {
  if (requester.username === undefined) return `${where}: ${name} needs a requesting user, none was sent`;
  return isUserAllowed(namespace, requester.username, name)
    ? undefined
    : `${where}: requester ${requester.username} may not use ${name}`;
}

/** Every reference of the pod: pod, containers of each list, alpha annotations (a pair per target). */
function referencesOf(pod: Obj): Ref[] {
  const refs = [
    refOf("pod", podOptions(pod)),
    ...readContainers(pod).map((c) => refOf(`${c.list} ${c.name}`, c.options)),
  ];
  for (const [target, entry] of annotationsByTarget(pod))
    refs.push({ where: `annotation for ${target ?? "pod"}`, name: entry.name, contents: entry.contents });
  return refs;
}

/**
 * True when a denial of `review` may rightly name differing keys: some reference names a credspec its service account
 * may use, with contents that differ from it. Otherwise no denial may describe any credspec's contents. True too for a
 * review the oracle cannot read (nothing is claimed then).
 */
export function mayNameDifferingKeys(review: unknown): boolean {
  try {
    const req = asObj(field(asObj(review, "review"), "request") ?? null, "request");
    const pod = asObj(field(req, "object") ?? null, "object");
    const { namespace, serviceAccount } = subjectOf(req, pod);
    return referencesOf(pod).some(
      ({ name, contents }) =>
        name !== undefined &&
        contents !== undefined &&
        CREDSPECS.has(name) &&
        isAllowed(namespace, serviceAccount, name) &&
        !jsonEqualsValue(contents, CREDSPECS.get(name)),
    );
  } catch {
    return true;
  }
}

/** A DNS-1123 subdomain (Kubernetes' rule for object names), written here from the Kubernetes docs. */
function isDnsSubdomain(name: string): boolean {
  return name.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name);
}

/** The create rules, for every reference (or only the new ephemeral containers' fields). */
function judgeCreate(pod: Obj, subject: Subject, options: OracleOptions, only?: (c: Container) => boolean) {
  const problem = only === undefined ? judgeAnnotations(pod, readContainers(pod)) : undefined;
  if (problem !== undefined) return problem;
  const podRef = refOf("pod", podOptions(pod));
  const refs =
    only === undefined
      ? referencesOf(pod)
      : readContainers(pod)
          .filter(only)
          .map((c) => {
            const own = refOf(`${c.list} ${c.name}`, c.options);
            // A new ephemeral container without GMSA fields of its own runs under the pod's (the kubelet copies both).
            return own.name === undefined && own.contents === undefined
              ? { ...podRef, where: `${c.list} ${c.name} (pod-level)` }
              : own;
          });
  const names = new Set<string>();
  for (const ref of refs) {
    if (ref.name === undefined && ref.contents === undefined) continue;
    if (ref.name === undefined) return `${ref.where}: contents without a name`;
    if (ref.contents === undefined) return `${ref.where}: name without contents`;
    if (repeatsAKey(ref.contents)) return `${ref.where}: contents repeat a key`;
    names.add(ref.name);
    const expected = CREDSPECS.get(ref.name);
    if (expected === undefined) return `${ref.where}: credspec ${ref.name} unknown or unreadable`;
    if (!isAllowed(subject.namespace, subject.serviceAccount, ref.name)) return `${ref.where}: ${ref.name} not allowed`;
    if (subject.requester !== undefined) {
      const problem = judgeRequester(subject.requester, subject.namespace, ref.name, ref.where);
      if (problem !== undefined) return problem;
    }
    if (!jsonEqualsValue(ref.contents, expected)) return `${ref.where}: contents differ from ${ref.name}`;
  }
  if (names.size > options.maxCredSpecNames) return "too many credspecs";
  return undefined;
}

/** Alpha annotations: each is a reference; it must name a container the pod has and agree with its field. */
function judgeAnnotations(pod: Obj, containers: Container[]): string | undefined {
  for (const [target, entry] of annotationsByTarget(pod)) {
    const matching = target === undefined ? [undefined] : containers.filter((c) => c.name === target);
    if (matching.length === 0) return `annotation for unknown container ${target}`;
    if (matching.length > 1) continue;
    const options = target === undefined ? podOptions(pod) : matching[0]?.options;
    const fieldName = stringField(options, "gmsaCredentialSpecName");
    const fieldContents = stringField(options, "gmsaCredentialSpec");
    if (entry.name !== undefined && fieldName !== undefined && entry.name !== fieldName)
      return `annotation name conflicts at ${target ?? "pod"}`;
    if (entry.contents !== undefined && fieldContents !== undefined && !jsonTextsEqual(entry.contents, fieldContents)) {
      return `annotation contents conflict at ${target ?? "pod"}`;
    }
  }
  return undefined;
}

/** The alpha annotations' name and contents for the pod (undefined) and each container they name. */
function annotationsByTarget(pod: Obj): Map<string | undefined, { name?: string; contents?: string }> {
  const byContainer = new Map<string | undefined, { name?: string; contents?: string }>();
  for (const [key, value] of Object.entries(readAnnotations(pod))) {
    const [, target, isName] = GMSA_KEY.exec(key) ?? [];
    const entry = byContainer.get(target) ?? {};
    if (isName === undefined) entry.contents = value;
    else entry.name = value;
    byContainer.set(target, entry);
  }
  return byContainer;
}

/** UPDATE: every GMSA setting (pod, each container list and name as a multiset, annotations) must be unchanged. */
function compareSettings(old: Obj, now: Obj, isNew: (c: Container) => boolean): string | undefined {
  const before = settingsOf(old, () => false);
  const after = settingsOf(now, isNew);
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = (before.get(key) ?? []).sort().join("\n");
    const b = (after.get(key) ?? []).sort().join("\n");
    if (a !== b) return `GMSA settings changed at ${key}`;
  }
  return undefined;
}

function settingsOf(pod: Obj, skip: (c: Container) => boolean): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  const add = (key: string, ref: Ref) => {
    if (ref.name === undefined && ref.contents === undefined) return;
    settings.set(key, [...(settings.get(key) ?? []), JSON.stringify([ref.name ?? null, ref.contents ?? null])]);
  };
  add("pod", refOf("pod", podOptions(pod)));
  for (const c of readContainers(pod)) if (!skip(c)) add(`${c.list}/${c.name}`, refOf(c.name, c.options));
  for (const [key, value] of Object.entries(readAnnotations(pod)))
    add(`annotation ${key}`, { where: key, name: value, contents: undefined });
  return settings;
}

function subjectOf(req: Obj, pod: Obj): Subject {
  const spec = objField(pod, "spec");
  const sa = spec === undefined ? undefined : field(spec, "serviceAccountName");
  const metadata = objField(pod, "metadata");
  const metadataNamespace = metadata === undefined ? undefined : field(metadata, "namespace");
  const namespace = field(req, "namespace") ?? metadataNamespace ?? "default";
  if (typeof namespace !== "string") throw new Unreadable("namespace");
  if (sa !== undefined && typeof sa !== "string") throw new Unreadable("serviceAccountName");
  return { namespace, serviceAccount: sa === undefined || sa === "" ? "default" : sa };
}

function podOptions(pod: Obj): Obj | undefined {
  const spec = objField(pod, "spec");
  const sc = spec === undefined ? undefined : objField(spec, "securityContext");
  return sc === undefined ? undefined : objField(sc, "windowsOptions");
}

function readContainers(pod: Obj): Container[] {
  const spec = objField(pod, "spec");
  if (spec === undefined) return [];
  const out: Container[] = [];
  for (const list of LISTS) {
    const items = field(spec, list);
    if (items === undefined) continue;
    if (!Array.isArray(items)) throw new Unreadable(list);
    for (const item of items) {
      const container = asObj(item, list);
      const name = field(container, "name");
      if (typeof name !== "string") throw new Unreadable(`${list} name`);
      const sc = objField(container, "securityContext");
      out.push({ list, name, options: sc === undefined ? undefined : objField(sc, "windowsOptions") });
    }
  }
  return out;
}

function readAnnotations(pod: Obj): Record<string, string> {
  const metadata = objField(pod, "metadata");
  const annotations = metadata === undefined ? undefined : objField(metadata, "annotations");
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (!GMSA_KEY.test(key)) continue;
    if (typeof value !== "string") throw new Unreadable(`annotation ${key}`);
    out[key] = value;
  }
  return out;
}

function refOf(where: string, options: Obj | undefined): Ref {
  return {
    where,
    name: stringField(options, "gmsaCredentialSpecName"),
    contents: stringField(options, "gmsaCredentialSpec"),
  };
}

function stringField(obj: Obj | undefined, key: string): string | undefined {
  const value = obj === undefined ? undefined : field(obj, key);
  if (value !== undefined && typeof value !== "string") throw new Unreadable(key);
  return value;
}

/** An own property only: `__proto__`, `constructor` and friends are plain keys here. */
function field(obj: Obj, key: string): Json | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function objField(obj: Obj, key: string): Obj | undefined {
  const value = field(obj, key);
  return value === undefined ? undefined : asObj(value, key);
}

function asObj(value: unknown, what: string): Obj {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Unreadable(what);
  return value as Obj;
}

/** Canonical JSON: object keys sorted, so equal values give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function jsonEqualsValue(text: string, value: unknown): boolean {
  const parsed = parse(text);
  return parsed.ok && canonical(parsed.value) === canonical(value);
}

function jsonTextsEqual(a: string, b: string): boolean {
  const pb = parse(b);
  return pb.ok && jsonEqualsValue(a, pb.value);
}

const TOKEN =
  // eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
  /[ \t\n\r]*(?:([{}[\],:])|("(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null))/y;

/**
 * True when `text` is JSON in which some object names one key twice (after unescaping). Read token by token with a
 * recursive descent of its own, never through JSON.parse of the whole text (which keeps the last key silently).
 * Text that is not JSON gives false: the other rules refuse it.
 */
function repeatsAKey(text: string): boolean {
  const tokens: string[] = [];
  let end = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    tokens.push(m[1] ?? m[2] ?? m[3] ?? "");
    end = TOKEN.lastIndex;
  }
  if (!/^[ \t\n\r]*$/.test(text.slice(end))) return false;
  let at = 0;
  let repeated = false;
  const value = (depth: number): boolean => {
    if (depth > 10_000) return false;
    const token = tokens[at++];
    if (token === "{") {
      const seen: string[] = [];
      if (tokens[at] === "}") {
        at++;
        return true;
      }
      for (;;) {
        const key = tokens[at++];
        if (key?.startsWith('"') !== true || tokens[at++] !== ":") return false;
        const unescaped = JSON.parse(key) as string;
        if (seen.includes(unescaped)) repeated = true;
        seen.push(unescaped);
        if (!value(depth + 1)) return false;
        const next = tokens[at++];
        if (next === "}") return true;
        if (next !== ",") return false;
      }
    }
    if (token === "[") {
      if (tokens[at] === "]") {
        at++;
        return true;
      }
      for (;;) {
        if (!value(depth + 1)) return false;
        const next = tokens[at++];
        if (next === "]") return true;
        if (next !== ",") return false;
      }
    }
    return token !== undefined && !"{}[],:".includes(token);
  };
  return value(0) && at === tokens.length && repeated;
}
