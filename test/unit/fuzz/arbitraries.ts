/**
 * fast-check generators of adversarial AdmissionReviews: GMSA references (right, wrong, malformed) on the pod,
 * containers, init and ephemeral containers and in alpha annotations, then mutations of the JSON value (wrong
 * types anywhere, GMSA fields in random places, `__proto__`/`constructor` keys, duplicate keys, deep nesting,
 * huge strings) and of the encoded bytes (invalid UTF-8).
 */
import fc from "fast-check";
import { ALLOWED, ALLOWED_USERS, CREDSPECS, FAILING_NAMES, NAMESPACES, SERVICE_ACCOUNTS, USERS } from "./world.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const KNOWN = [...CREDSPECS.keys()];
const BAD_NAMES = [
  "Bad_Name",
  "",
  "webapp1 ",
  "WEBAPP1",
  "a".repeat(254),
  "wébapp",
  "-x",
  "x-",
  "a..b",
  "__proto__",
  "constructor",
];
export const CONTAINER_NAMES = [
  "web",
  "sidecar",
  "setup",
  "debug",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
];

export const credSpecName: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KNOWN) },
  { weight: 3, arbitrary: fc.constantFrom(...FAILING_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...BAD_NAMES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Keys in reverse order at every level: the same JSON value, different text. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reordered(v)]),
    );
  }
  return value;
}

/** Contents for `name`: equal (as is, reordered, pretty), different, another credspec's, not JSON, random. */
export function contentsFor(name: string): fc.Arbitrary<string> {
  const own = CREDSPECS.get(name) ?? CREDSPECS.get("webapp1");
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(JSON.stringify(own)) },
    { weight: 2, arbitrary: fc.constant(JSON.stringify(reordered(own))) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(own, null, 2)) },
    { weight: 2, arbitrary: fc.constantFrom(...KNOWN).map((other) => JSON.stringify(CREDSPECS.get(other))) },
    {
      weight: 1,
      arbitrary: fc.jsonValue({ maxDepth: 2 }).map((extra) => JSON.stringify({ ...(own as object), Extra: extra })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("{", "", "null", "[]", '{"__proto__":{"CmsPlugins":[]}}', `${JSON.stringify(own)} `),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 2, arbitrary: repeatedKey(own) },
    { weight: 3, arbitrary: looselyEqual(own) },
  );
}

/**
 * The credspec's text rewritten: the same JSON value in another spelling (`1.0`, `25e-1`, `-0`, escapes, trailing
 * white space), or close to it but not equal (a number as a string, `{}` for `[]`, a key's case, data after the
 * value, a prefix of the text). The oracle decides which must be refused.
 */
export function looselyEqual(own: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(own);
  const edits: ((t: string) => string)[] = [
    (t) => t.replace('"Numbers":[1,', '"Numbers":[1.0,'),
    (t) => t.replace("2.5,", "25e-1,"),
    (t) => t.replace("1e+21", "1000000000000000000000"),
    (t) => t.replace("1e+21", "1E21"),
    (t) => t.replace(",0,", ",-0.0,"),
    (t) => t.replace('"ActiveDirectory"', '"\\u0041ctiveDirectory"'),
    (t) => `${t}\n\t `,
    (t) => t.replace('"Numbers":[1,', '"Numbers":["1",'),
    (t) => t.replace("2.5,", "2.51,"),
    (t) => t.replace('"Empty":{}', '"Empty":[]'),
    (t) => t.replace('"Empty":{}', '"Empty":null'),
    (t) => t.replace('"CmsPlugins"', '"cmsPlugins"'),
    (t) => t.replace(',"Empty":{}', ""),
    (t) => `${t}x`,
    (t) => `${t}{}`,
    (t) => `${t},`,
    (t) => `${t}${t}`,
  ];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...edits).map((edit) => edit(text)) },
    { weight: 1, arbitrary: fc.nat(text.length - 1).map((end) => text.slice(0, end)) },
  );
}

/**
 * The credspec's own text with one key written twice, somewhere: the first copy (spelled plainly or escaped) holds
 * another value and JSON.parse keeps the last, so the parsed value still equals the credspec (issue 14, section 2).
 */
function repeatedKey(own: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(own);
  const keys = [...text.matchAll(/"([A-Za-z]+)":/g)].map((m) => ({ at: m.index, key: m[1] ?? "" }));
  return fc
    .tuple(fc.constantFrom(...keys), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
    .map(([{ at, key }, escaped, other]) => {
      const spelled = escaped ? `\\u${key.charCodeAt(0).toString(16).padStart(4, "0")}${key.slice(1)}` : key;
      return `${text.slice(0, at)}"${spelled}":${JSON.stringify(other)},${text.slice(at)}`;
    });
}

/** What a pod's GMSA references hold: the names they use, and contents for a name (none: names only). */
interface References {
  names: fc.Arbitrary<string>;
  contents?: (name: string) => fc.Arbitrary<string>;
  /** Name and contents come together or not at all (as expand leaves them). */
  paired?: boolean;
}

const ADVERSARIAL: References = { names: credSpecName, contents: contentsFor };

/** A windowsOptions object with GMSA fields that belong together (or not). */
function windowsOptionsWith({ names, contents, paired }: References): fc.Arbitrary<Obj> {
  const others = {
    runAsUserName: fc.constantFrom(
      "NT AUTHORITY\\SYSTEM",
      "NT AUTHORITY\\NETWORK SERVICE",
      "ContainerUser",
      "x".repeat(300),
    ),
    hostProcess: fc.boolean(),
  };
  if (paired === true && contents !== undefined) {
    const gmsa = names.chain((name) =>
      fc.record({ gmsaCredentialSpecName: fc.constant(name), gmsaCredentialSpec: contents(name) }),
    );
    return fc
      .tuple(fc.option(gmsa, { nil: undefined }), fc.record(others, { requiredKeys: [] }))
      .map(([fields, rest]) => ({ ...fields, ...rest }));
  }
  return names.chain((name) =>
    fc.record(
      {
        gmsaCredentialSpecName: fc.constant(name),
        ...(contents === undefined ? {} : { gmsaCredentialSpec: contents(name) }),
        ...others,
      },
      { requiredKeys: [] },
    ),
  );
}

export const windowsOptions: fc.Arbitrary<Obj> = windowsOptionsWith(ADVERSARIAL);

function securityContextWith(references: References): fc.Arbitrary<Obj> {
  return fc.record(
    { windowsOptions: windowsOptionsWith(references), runAsNonRoot: fc.boolean() },
    { requiredKeys: [] },
  );
}

function containerWith(references: References): fc.Arbitrary<Obj> {
  return fc.record(
    {
      name: fc.constantFrom(...CONTAINER_NAMES),
      image: fc.constant("mcr.microsoft.com/windows/nanoserver:ltsc2022"),
      securityContext: securityContextWith(references),
    },
    { requiredKeys: ["name"] },
  );
}

export const container: fc.Arbitrary<Obj> = containerWith(ADVERSARIAL);

/** Alpha annotation keys for the pod and containers, and random ones; contents keys only when contents are wanted. */
function annotationKeyWith({ contents }: References): fc.Arbitrary<string> {
  const suffixes =
    contents === undefined ? ["gmsa-credential-spec-name"] : ["gmsa-credential-spec-name", "gmsa-credential-spec"];
  return fc.oneof(
    fc.constantFrom(...suffixes.map((k) => `pod.alpha.windows.kubernetes.io/${k}`)),
    fc
      .tuple(fc.constantFrom(...CONTAINER_NAMES, "ghost"), fc.constantFrom(...suffixes))
      .map(([c, k]) => `${c}.container.alpha.windows.kubernetes.io/${k}`),
    fc.string({ maxLength: 16 }),
    fc.constantFrom("__proto__", "constructor", "hasOwnProperty"),
  );
}

function annotationsWith(references: References): fc.Arbitrary<Record<string, string>> {
  const values =
    references.contents === undefined
      ? references.names
      : fc.oneof(references.names, references.contents("webapp1"), fc.string({ maxLength: 16 }));
  return fc.array(fc.tuple(annotationKeyWith(references), values), { maxLength: 4 }).map((pairs) => {
    const out: Record<string, string> = {};
    for (const [k, v] of pairs)
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

function anyPodWith(references: References): fc.Arbitrary<Obj> {
  const container = containerWith(references);
  return fc.record(
    {
      apiVersion: fc.constant("v1"),
      kind: fc.constant("Pod"),
      metadata: fc.record(
        {
          name: fc.constantFrom("web", "db"),
          namespace: fc.constantFrom(...NAMESPACES),
          annotations: annotationsWith(references),
        },
        { requiredKeys: [] },
      ),
      spec: fc.record(
        {
          serviceAccountName: fc.constantFrom(...SERVICE_ACCOUNTS, ""),
          securityContext: securityContextWith(references),
          containers: fc.array(container, { maxLength: 4 }),
          initContainers: fc.array(container, { maxLength: 2 }),
          ephemeralContainers: fc.array(container, { maxLength: 2 }),
        },
        { requiredKeys: ["containers"] },
      ),
    },
    { requiredKeys: ["spec"] },
  );
}

/**
 * Pods whose container names are unique in nine of ten cases: the API server requires it and the functions
 * refuse a repeat before the GMSA rules run, so repeats in most pods would leave those rules unfuzzed.
 */
function podWith(references: References): fc.Arbitrary<Obj> {
  return fc
    .tuple(anyPodWith(references), fc.nat(9))
    .map(([value, keep]) => (keep === 0 ? value : withUniqueContainerNames(value)));
}

export const pod: fc.Arbitrary<Obj> = podWith(ADVERSARIAL);

/** The containers, init and ephemeral containers of a pod's `spec`. */
const containersOf = (spec: Obj): Obj[] =>
  ["containers", "initContainers", "ephemeralContainers"].flatMap((list) => (spec[list] as Obj[] | undefined) ?? []);

/** Renames repeated container names (across containers, init and ephemeral containers) by a numeric suffix. */
function withUniqueContainerNames(value: Obj): Obj {
  const seen = new Set<string>();
  for (const item of containersOf(value.spec as Obj)) {
    let name = item.name as string;
    for (let n = 2; seen.has(name); n++) name = `${item.name as string}-${n}`;
    seen.add(name);
    item.name = name;
  }
  return value;
}

/** How an UPDATE's new pod relates to the old one. */
const updateOf: fc.Arbitrary<(old: Obj) => { object: Obj; subResource?: string }> = fc.oneof(
  fc.constant((old: Obj) => ({ object: structuredClone(old) })),
  pod.map((other) => () => ({ object: other })),
  fc.array(container, { minLength: 1, maxLength: 2 }).map((added) => (old: Obj) => {
    const object = structuredClone(old);
    const spec = object.spec as Obj;
    spec.ephemeralContainers = [...((spec.ephemeralContainers as Json[] | undefined) ?? []), ...added];
    return { object, subResource: "ephemeralcontainers" };
  }),
);

export const review: fc.Arbitrary<Obj> = fc
  .record({
    apiVersion: fc.constantFrom("admission.k8s.io/v1", "admission.k8s.io/v1beta1"),
    uid: fc.oneof({ weight: 9, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.string({ maxLength: 300 }) }),
    kind: fc.oneof(
      { weight: 12, arbitrary: fc.constant({ group: "", version: "v1", kind: "Pod" }) },
      {
        weight: 1,
        arbitrary: fc.record({
          group: fc.constantFrom("", "apps"),
          version: fc.constant("v1"),
          kind: fc.constantFrom("Deployment", "pod", "Pod"),
        }),
      },
    ),
    operation: fc.oneof(
      { weight: 7, arbitrary: fc.constant("CREATE") },
      { weight: 3, arbitrary: fc.constant("UPDATE") },
      fc.constantFrom("DELETE", "CONNECT"),
    ),
    namespace: fc.option(fc.constantFrom(...NAMESPACES, ""), { nil: undefined }),
    old: pod,
    update: updateOf,
    dryRun: fc.boolean(),
    userInfo: fc.option(
      fc.record(
        { username: fc.constantFrom(...USERS, ""), groups: fc.constant<Json[]>(["system:authenticated"]) },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
  })
  .map(({ apiVersion, uid, kind, operation, namespace, old, update, dryRun, userInfo }) => {
    const request: Obj = { uid, kind, operation, dryRun, name: "web" };
    if (namespace !== undefined) request.namespace = namespace;
    if (userInfo !== undefined) request.userInfo = userInfo;
    if (operation === "UPDATE") {
      const { object, subResource } = update(old);
      Object.assign(request, { object, oldObject: old, ...(subResource === undefined ? {} : { subResource }) });
    } else {
      request.object = old;
    }
    return { apiVersion, kind: "AdmissionReview", request };
  });

/** A mutation of a JSON value: picks a node by index (modulo the node count) and changes it. */
export type Mutation =
  | { kind: "replace"; at: number; value: Json }
  | { kind: "gmsa-anywhere"; at: number; value: Obj }
  | { kind: "odd-key"; at: number; key: string; value: Json }
  | { kind: "duplicate-key"; at: number; value: Json }
  | { kind: "deep"; at: number; depth: number }
  | { kind: "huge-string"; at: number; length: number };

const json = (maxDepth: number) => fc.jsonValue({ maxDepth }) as fc.Arbitrary<Json>;

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: json(2) }),
  fc.record({ kind: fc.constant("gmsa-anywhere" as const), at: fc.nat(), value: windowsOptions }),
  fc.record({
    kind: fc.constant("odd-key" as const),
    at: fc.nat(),
    key: fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "valueOf",
      "windowsOptions",
      "securityContext",
      "gmsaCredentialSpecName",
    ),
    value: fc.oneof(windowsOptions, fc.record({ windowsOptions }), json(2)),
  }),
  fc.record({ kind: fc.constant("duplicate-key" as const), at: fc.nat(), value: fc.oneof(credSpecName, json(1)) }),
  fc.record({ kind: fc.constant("deep" as const), at: fc.nat(), depth: fc.integer({ min: 100, max: 5000 }) }),
  fc.record({
    kind: fc.constant("huge-string" as const),
    at: fc.nat(),
    length: fc.integer({ min: 10_000, max: 200_000 }),
  }),
);

/** Bytes inserted at positions of the encoded body: mostly invalid UTF-8 (lone continuation bytes, 0xFE/0xFF). */
export const byteNoise = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0x80, max: 0xff })), { maxLength: 3 });

/**
 * Applies mutations to a copy of `value` and encodes it. Keys that JSON.stringify cannot express (duplicates,
 * `__proto__` as an own key, very deep nesting) are written as placeholders and spliced into the text.
 */
export function encode(
  value: Obj,
  mutations: readonly Mutation[],
  noise: readonly (readonly [number, number])[] = [],
): Uint8Array {
  const copy = structuredClone(value);
  const splices: [string, string][] = [];
  mutations.forEach((m, i) => {
    const nodes = listNodes(copy);
    const node = nodes[m.at % nodes.length];
    if (node === undefined) return;
    const placeholder = `@@splice-${i}@@`;
    switch (m.kind) {
      case "replace":
        if (node.parent !== undefined) setChild(node.parent, node.key, m.value);
        break;
      case "gmsa-anywhere":
        if (isObj(node.value)) node.value[m.at % 2 === 0 ? "windowsOptions" : "securityContext"] = m.value;
        break;
      case "odd-key":
        if (isObj(node.value)) {
          node.value[placeholder] = m.value;
          splices.push([`"${placeholder}"`, JSON.stringify(m.key)]);
        }
        break;
      case "duplicate-key": {
        if (!isObj(node.value)) break;
        const key = Object.keys(node.value)[m.at % Math.max(1, Object.keys(node.value).length)];
        if (key === undefined) break;
        node.value[placeholder] = m.value;
        splices.push([`"${placeholder}"`, JSON.stringify(key)]);
        break;
      }
      case "deep":
        if (node.parent !== undefined) {
          setChild(node.parent, node.key, placeholder);
          splices.push([`"${placeholder}"`, `${"[".repeat(m.depth)}${"]".repeat(m.depth)}`]);
        }
        break;
      case "huge-string":
        if (node.parent !== undefined) setChild(node.parent, node.key, "x".repeat(m.length));
        break;
    }
  });
  let text = JSON.stringify(copy);
  for (const [from, to] of splices) text = text.replace(from, to);
  const bytes = new TextEncoder().encode(text);
  if (noise.length === 0) return bytes;
  const out = [...bytes];
  for (const [at, byte] of noise) out.splice(at % (out.length + 1), 0, byte);
  return new Uint8Array(out);
}

interface Node {
  value: Json;
  parent: Obj | Json[] | undefined;
  key: string | number;
}

function listNodes(root: Json): Node[] {
  const nodes: Node[] = [{ value: root, parent: undefined, key: "" }];
  for (let i = 0; i < nodes.length && nodes.length < 2000; i++) {
    const { value } = nodes[i] ?? { value: null };
    if (Array.isArray(value)) value.forEach((v, k) => nodes.push({ value: v, parent: value, key: k }));
    else if (isObj(value)) for (const [k, v] of Object.entries(value)) nodes.push({ value: v, parent: value, key: k });
  }
  return nodes;
}

function setChild(parent: Obj | Json[], key: string | number, value: Json): void {
  if (Array.isArray(parent)) parent[key as number] = value;
  else Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
}

function isObj(value: Json | undefined): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The allowed (namespace, service account, credspec) triples whose credspec exists and whose checks never fail. */
const usableTriple = fc.constantFrom(
  ...[...ALLOWED]
    .map((triple) => triple.split("/") as [string, string, string])
    .filter(([, , name]) => CREDSPECS.has(name) && !name.startsWith("access-")),
);

/**
 * Reviews expand has work on: the CREATE of a core/v1 Pod by a service account allowed to use a credspec, whose GMSA
 * references name that credspec in nine of ten cases (else any name) without contents, mostly without alpha
 * annotations, so most come back patched and authorize must then allow them.
 */
export const expandableReview: fc.Arbitrary<Obj> = usableTriple.chain(([namespace, serviceAccountName, name]) =>
  fc
    .tuple(
      review,
      podWith({ names: fc.oneof({ weight: 9, arbitrary: fc.constant(name) }, { weight: 1, arbitrary: credSpecName }) }),
      fc.nat(3),
    )
    .map(([value, object, keepAnnotations]) => createOf(value, object, namespace, serviceAccountName, keepAnnotations)),
);

/**
 * `value` made the CREATE of `object` (a core/v1 Pod) by `serviceAccountName` in `namespace`, with `requester`'s
 * userInfo in place of its own when given. Alpha annotations must agree with the fields and name real containers: kept
 * in one pod of four (`keepAnnotations` 0).
 */
function createOf(
  value: Obj,
  object: Obj,
  namespace: string,
  serviceAccountName: string,
  keepAnnotations: number,
  requester?: { userInfo?: Obj },
): Obj {
  if (keepAnnotations > 0 && isObj(object.metadata)) delete object.metadata.annotations;
  if (isObj(object.metadata)) object.metadata.namespace = namespace;
  (object.spec as Obj).serviceAccountName = serviceAccountName;
  const { oldObject: _old, subResource: _sub, ...request } = value.request as Obj;
  if (requester !== undefined) delete request.userInfo;
  const kind = { group: "", version: "v1", kind: "Pod" };
  return { ...value, request: { ...request, kind, operation: "CREATE", namespace, object, ...requester } };
}

/** Contents for `name` that equal its credspec in 12 of 13 cases, else any of {@link contentsFor}. */
function mostlyEqualContents(name: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(JSON.stringify(CREDSPECS.get(name))) },
    { weight: 1, arbitrary: contentsFor(name) },
  );
}

/**
 * CREATE reviews a service account may pass: namespace, service account and credspec from one allowed triple, the
 * pod's references naming that credspec with contents that are mostly equal (sometimes different or malformed).
 * The triples whose access checks fail (access-flaky, access-buggy) are left to `review`.
 * Mixed into authorize's input so that many reviews are allowed and the oracle judges them at the boundary.
 */
export const authorizableReview: fc.Arbitrary<Obj> = usableTriple.chain((triple) => authorizableFor(triple));

function authorizableFor([namespace, serviceAccountName, name]: [string, string, string]): fc.Arbitrary<Obj> {
  return fc
    .tuple(
      review,
      podWith({ names: fc.constant(name), contents: mostlyEqualContents, paired: true }),
      fc.nat(3),
      requesterFor(namespace, name),
      fc.nat(9),
    )
    .map(([value, object, keepAnnotations, requester, ghost]) => {
      const created = createOf(value, object, namespace, serviceAccountName, keepAnnotations, requester);
      if (ghost === 0) annotateAbsentContainer(object, name);
      return created;
    });
}

/** A requester allowed to use `name` in `namespace` in two of three cases (when the world has one), else any. */
function requesterFor(namespace: string, name: string): fc.Arbitrary<{ userInfo?: Obj }> {
  const allowed = USERS.filter((user) => ALLOWED_USERS.has(`${namespace}/${user}/${name}`));
  const any = fc
    .option(fc.constantFrom(...USERS), { nil: undefined })
    .map((user) => (user === undefined ? {} : { userInfo: { username: user } }));
  if (allowed.length === 0) return any;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...allowed).map((user) => ({ userInfo: { username: user } })) },
    { weight: 1, arbitrary: any },
  );
}

/**
 * Adds alpha annotations (name `name` and its contents, agreeing with the fields) for a container the pod does not
 * have: an otherwise allowed pod that authorize must refuse (422).
 */
function annotateAbsentContainer(object: Obj, name: string): void {
  const present = new Set(containersOf(object.spec as Obj).map((c) => c.name));
  const absent = [...CONTAINER_NAMES, "ghost"].find((c) => !present.has(c)) ?? "ghost";
  const metadata = isObj(object.metadata) ? object.metadata : (object.metadata = {});
  const annotations = isObj(metadata.annotations) ? metadata.annotations : (metadata.annotations = {});
  setChild(annotations, `${absent}.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name`, name);
  // With its contents, as expand leaves them: else the pair is refused as a name without contents whatever the container.
  setChild(
    annotations,
    `${absent}.container.alpha.windows.kubernetes.io/gmsa-credential-spec`,
    JSON.stringify(CREDSPECS.get(name)),
  );
}

/**
 * UPDATEs of `pods/ephemeralcontainers` that change an existing ephemeral container's GMSA setting (add, remove, rename,
 * respell the contents), sometimes beside a new ephemeral container: the old pod is one an allowed service account
 * may run, so only the change is wrong (400).
 */
export const ephemeralChangeReview: fc.Arbitrary<Obj> = fc
  .tuple(
    // With the credspec the pod's service account may use.
    usableTriple.chain((triple) => authorizableFor(triple).map((value) => ({ value, credSpecName: triple[2] }))),
    fc.constantFrom("add", "remove", "rename", "respell", "none"),
    fc.constantFrom(...KNOWN),
    fc.boolean(),
    fc.array(container, { maxLength: 1 }),
  )
  .map(([{ value, credSpecName }, change, other, withOwn, added]) => {
    const request = value.request as Obj;
    const old = structuredClone(request.object as Obj);
    const spec = old.spec as Obj;
    const contents = JSON.stringify(CREDSPECS.get(credSpecName));
    const gmsa = { gmsaCredentialSpecName: credSpecName, gmsaCredentialSpec: contents };
    spec.ephemeralContainers = [
      ...((spec.ephemeralContainers as Obj[] | undefined) ?? []).filter((c) => c.name !== "debug-old"),
      { name: "debug-old", ...(withOwn ? { securityContext: { windowsOptions: gmsa } } : {}) },
    ];
    const object = structuredClone(old);
    const target = (object.spec as Obj).ephemeralContainers as Obj[];
    const changed = target[target.length - 1] as Obj;
    const changes: Record<typeof change, Obj> = {
      add: gmsa,
      remove: {},
      rename: { gmsaCredentialSpecName: other, gmsaCredentialSpec: JSON.stringify(CREDSPECS.get(other)) },
      respell: { ...gmsa, gmsaCredentialSpec: JSON.stringify(CREDSPECS.get(credSpecName), null, 1) },
      none: withOwn ? gmsa : {},
    };
    // Without a setting of its own, any change adds one.
    changed.securityContext = { windowsOptions: withOwn || change === "none" ? changes[change] : gmsa };
    (object.spec as Obj).ephemeralContainers = [...target, ...added];
    return {
      ...value,
      request: { ...request, operation: "UPDATE", subResource: "ephemeralcontainers", object, oldObject: old },
    };
  });
