/**
 * The one Hono Env of the app. `Bindings` are the platform's (the Node server's `incoming` and `outgoing`, a
 * Worker's env): only an adapter's own middleware reads them (the Node server's client certificate), never a handler.
 */
export interface AppEnv {
  Bindings: object;
  Variables: {
    /** Aborts when the review's time is up (set by the review routes' deadline middleware, shared/http/deadline.ts). */
    signal: AbortSignal;
  };
}
