/**
 * The one Hono Env of the apps (STYLE.md section 2). No context variables: the review routes get their deadline
 * from functions/review-endpoint.ts, not from middleware.
 */
export interface AppEnv {
  Variables: Record<never, never>;
}
