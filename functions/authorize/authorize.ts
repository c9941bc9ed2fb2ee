import { isEphemeralContainersUpdate, otherKindWarning, readPod } from "../../shared/admission/request.ts";
import type { AdmissionOutcome } from "../../shared/admission/response.ts";
import { isPodReview, type AdmissionRequest, type AdmissionReviewRequest } from "../../shared/admission/review.ts";
import { asAdmissionError, InvalidReviewError } from "../../shared/errors.ts";
import type { RequestingUser } from "../../shared/kube/gmsa-client.ts";
import { checkUserAccess, decideAuthorize, planAuthorize } from "../../shared/policy/authorize.ts";
import { distinctNames } from "../../shared/policy/checks.ts";
import { listReferences, type GmsaReference } from "../../shared/policy/references.ts";
import { checkUpdate } from "../../shared/policy/update.ts";
import { isNewEphemeralContainer, listOptionsPlaces, type OptionsPlace } from "../../shared/policy/walk.ts";
import { listRunAsUserWarnings } from "../../shared/policy/warnings.ts";
import { loadAccess, loadCredSpecs } from "../load-facts.ts";
import type { ReviewContext, ReviewSettings } from "../review-context.ts";
import { applyEnforcement } from "./enforcement.ts";

/**
 * The validating webhook. UPDATEs may not touch GMSA settings (no API call); CREATEs and new ephemeral
 * containers need an existing credspec the service account (and, per REVIEW_REQUESTING_USER, the requesting
 * user) may `use`, with equal inlined contents. Anything that goes wrong is a denial: fail closed, unless
 * ENFORCEMENT=warn turns denials into warnings. Every pod decision carries audit annotations.
 */
export async function authorizeReview({ request }: AdmissionReviewRequest, ctx: ReviewContext): Promise<AdmissionOutcome> {
  if (!isPodReview(request)) return { allowed: true, warnings: [otherKindWarning(request)] };
  if (request.operation === "DELETE" || request.operation === "CONNECT") return { allowed: true };
  const names = new Set<string>();
  let outcome: AdmissionOutcome;
  try {
    outcome = await judgePod(request, ctx, names);
  } catch (error) {
    // Thrown errors (a malformed review, our own bug) are judged like denials, so warn mode never blocks either.
    outcome = { allowed: false, errors: [asAdmissionError(error)] };
  }
  return applyEnforcement(outcome, names, ctx.settings.enforcement);
}

/** The decision in `deny` mode; `names` collects the credspecs judged, for the audit annotations. */
async function judgePod(request: AdmissionRequest, ctx: ReviewContext, names: Set<string>): Promise<AdmissionOutcome> {
  const pod = readPod(request);
  let targets: ((place: OptionsPlace) => boolean) | undefined;
  const ephemeral = isEphemeralContainersUpdate(request);
  if (request.operation === "UPDATE") {
    targets = ephemeral ? isNewEphemeralContainer(readPod(request, "oldObject")) : undefined;
    const newPlaces = new Set(targets ? listOptionsPlaces(pod).filter(targets).map((p) => p.label) : []);
    const changes = checkUpdate(readPod(request, "oldObject"), pod, (label) => newPlaces.has(label));
    if (changes.length > 0) return { allowed: false, errors: changes };
    if (!ephemeral) return judgeUpdateRequester(request, ctx, names, listReferences(pod));
  }

  const plan = planAuthorize(pod, { maxCredSpecNames: ctx.settings.maxCredSpecNames, ...(targets ? { targets } : {}) });
  for (const name of plan.names) names.add(name);
  if (plan.errors.length > 0) return { allowed: false, errors: plan.errors };
  const warnings = listRunAsUserWarnings(pod);
  if (plan.names.size === 0) return { allowed: true, warnings };

  const namespace = request.namespace ?? pod.metadata?.namespace ?? "default";
  const subject = { namespace, serviceAccount: pod.spec?.serviceAccountName || "default" };
  const user = reviewsRequester(ctx.settings, ephemeral) ? requestingUser(request) : undefined;
  // All started before any is awaited, so they load concurrently; held facts come back as plain values.
  const loadingCredSpecs = loadCredSpecs(ctx.gmsa, plan.names, ctx.signal, ctx.tally);
  const loadingAccess = loadAccess(ctx.gmsa, subject, plan.names, ctx.signal, ctx.tally);
  const loadingUserAccess = user === undefined ? undefined : loadAccess(ctx.gmsa, { namespace, user }, plan.names, ctx.signal, ctx.tally);
  const credspecs = await loadingCredSpecs;
  const access = await loadingAccess;
  const userAccess = await loadingUserAccess;
  const errors = decideAuthorize(plan, {
    credspecs,
    access,
    ...subject,
    ...(user && userAccess ? { user: { username: user.username, access: userAccess } } : {}),
  });
  return errors.length > 0 ? { allowed: false, errors, warnings } : { allowed: true, warnings };
}

/**
 * An UPDATE that leaves GMSA settings alone needs nothing more, except with REVIEW_REQUESTING_USER=always: then
 * whoever updates a pod that names credspecs must be allowed to `use` them (the service account was reviewed at
 * create, and the credspecs may have changed since; neither is judged again here).
 */
async function judgeUpdateRequester(request: AdmissionRequest, ctx: ReviewContext, names: Set<string>, refs: GmsaReference[]): Promise<AdmissionOutcome> {
  const used = distinctNames(refs);
  for (const name of used) names.add(name);
  if (ctx.settings.requestingUser !== "always" || used.size === 0) return { allowed: true };
  const user = requestingUser(request);
  const access = await loadAccess(ctx.gmsa, { namespace: request.namespace ?? "default", user }, used, ctx.signal, ctx.tally);
  const facts = { username: user.username, access };
  const errors = [...used].flatMap((name) => checkUserAccess(facts, name, refs.filter((ref) => ref.name === name).map((ref) => ref.label)));
  return errors.length > 0 ? { allowed: false, errors } : { allowed: true };
}

function reviewsRequester(settings: ReviewSettings, ephemeral: boolean): boolean {
  return settings.requestingUser === "always" || (settings.requestingUser === "ephemeral" && ephemeral);
}

/** The request's userInfo; the API server always sends it, so its absence is a malformed review (400). */
function requestingUser(request: AdmissionRequest): RequestingUser {
  const info = request.userInfo;
  if (info?.username === undefined || info.username === "") throw new InvalidReviewError("request.userInfo.username is missing");
  return {
    username: info.username,
    ...(info.uid === undefined ? {} : { uid: info.uid }),
    ...(info.groups === undefined ? {} : { groups: info.groups }),
    ...(info.extra === undefined ? {} : { extra: info.extra }),
  };
}
