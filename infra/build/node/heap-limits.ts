/**
 * The V8 flags the Node server runs with in production (`npm start`, the image's command, the chart's command), so
 * that a replica fits a 128 MiB container. Without them V8 sizes its heap from the machine's memory (an old-space
 * limit of about 4 GiB on a 24 GiB machine) and grows it lazily: RSS climbed to 330-395 MiB under load while the live
 * heap stayed near 17 MB (test/bench/RESULTS.md, section G).
 * - 64 MiB of old space is over three times the live heap under load.
 * - 4 MiB semi-spaces keep the young generation at 8 MiB (a scavenge every hundred or so reviews, each copying only
 *   the reviews in flight). Against 2 MiB, in section G's load alternating: 1 to 3 MiB more at idle, the same RSS
 *   after load and CPU per review, and RSS takes its one step up under load sooner: within the first 40,000 reviews
 *   in nine runs of nine, where expand with 2 MiB took it later in eight of eight. The minimum is the maximum:
 *   reviews, which die young, never grow a young generation shrunk to its minimum back (10 to 40 µs more per
 *   review); unused semi-space pages cost no RSS at idle.
 * - `--no-concurrent-recompilation` runs V8's optimizing compiles on the main thread, one at a time, instead of on
 *   its worker threads: 6 to 9 MiB less RSS after load in section G, and no more CPU per review (a heaptrack profile
 *   of the default found the compilers' scratch memory peaking at 9 MB). A review that arrives during a compile, at
 *   warm-up, waits for it.
 *
 * `npm start` and the image (infra/build/node/image.ts) pass them on the command line, where they win over
 * NODE_OPTIONS: to change them, run `node` with other values (in a pod: the container's `command`).
 * test/unit/infra/heap-limits.test.ts keeps both in step with this constant.
 */
export const NODE_SERVER_OPTIONS =
  "--max-old-space-size=64 --min-semi-space-size=4 --max-semi-space-size=4 --no-concurrent-recompilation";
