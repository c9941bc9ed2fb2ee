/** The one Hono Env of the apps (STYLE.md section 2): typed context variables set by middleware. */
export interface AppEnv {
  Variables: {
    /** The review's deadline, from the API server's `?timeout=` (see deadline.ts). */
    deadline: AbortSignal;
  };
}
