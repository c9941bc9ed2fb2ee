/** The app's one Hono Env: `signal` aborts when the review's time is up (reviewDeadline); only adapters read `Bindings`. */
export type AppEnv = { Bindings: object; Variables: { signal: AbortSignal } };
