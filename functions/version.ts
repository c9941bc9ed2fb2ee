import pkg from "../package.json" with { type: "json" };

/** The product version, from package.json (served at GET /version). */
export const VERSION: string = pkg.version;
