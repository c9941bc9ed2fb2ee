/**
 * The V8 heap limits the Node server runs with in production (`npm start`, the Dockerfile's NODE_OPTIONS), so that a
 * replica fits a 128 MiB container. Without them V8 sizes its heap from the machine's memory (an old-space limit of
 * about 4 GiB on a 24 GiB machine) and grows it lazily: RSS climbed to 330-395 MiB under load while the live heap
 * stayed near 17 MB (test/bench/RESULTS.md, section G). Override with NODE_OPTIONS (the README's Performance section).
 */
export const NODE_SERVER_OPTIONS = "--max-old-space-size=64 --max-semi-space-size=4";
