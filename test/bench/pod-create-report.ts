/** Section F's tables: each webhook pair against the floor, their creates alternating (pod-create.ts). */
import { podCreateAdded } from "./figures.ts";
import { addedP50, type PodCreateRounds } from "./pod-create.ts";
import { fixed, printColumns } from "./table.ts";

export type LabelledPodCreates = readonly [label: string, rounds: PodCreateRounds];

const FLOOR_LABEL = "minimal Node webhook pair (floor)";

export function printPodCreate(entries: readonly LabelledPodCreates[]): void {
  printColumns(
    "F. Dry-run pod creates through kube-apiserver (infra/deploy/samples/pod.yaml, admin token, keep-alive, one at a time; ms): the floor and each webhook pair, alternating",
    [
      ["webhooks", ({ label }) => label],
      ["round", ({ round }) => round],
      ["creates", ({ pair }) => pair.with.requests],
      ["none p50", ({ pair }) => fixed(pair.without.latencyMs.p50, 2)],
      ["with p50", ({ pair }) => fixed(pair.with.latencyMs.p50, 2)],
      ["added p50", ({ pair }) => fixed(addedP50(pair), 2)],
      ["added p99", ({ pair }) => fixed(pair.with.latencyMs.p99 - pair.without.latencyMs.p99, 2)],
      ["errors", ({ pair }) => pair.without.errors + pair.with.errors],
    ],
    entries.flatMap(([label, rounds]) =>
      rounds.webhooks.flatMap((pair, index) => [
        { label: FLOOR_LABEL, round: index + 1, pair: rounds.floor[index]! },
        { label, round: index + 1, pair },
      ]),
    ),
    "Floor: test/bench/minimal-webhook.ts, an HTTPS server answering both webhooks at once (expand with a fixed patch): " +
      "what the API server and the transport cost whatever the webhook does. The floor and the pair are registered together, each for pods with a label of " +
      "its own; in each round, creates alternate between a pod for neither (none), one for the floor and one for the pair.",
  );
  printColumns(
    "F. Side by side: what each webhook pair adds to a dry-run pod create at p50, against the floor in the same creates (ms)",
    [
      ["webhooks", ({ label }) => label],
      ["added p50 by round", ({ rounds }) => rounds.webhooks.map((pair) => fixed(addedP50(pair), 2)).join(" / ")],
      ["median", ({ medians }) => fixed(medians?.added ?? Number.NaN, 2)],
      ["floor's by round", ({ rounds }) => rounds.floor.map((pair) => fixed(addedP50(pair), 2)).join(" / ")],
      ["floor's median", ({ medians }) => fixed(medians?.floor ?? Number.NaN, 2)],
      [
        "added / floor's by round",
        ({ rounds }) =>
          rounds.webhooks.map((pair, i) => `${fixed(addedP50(pair) / addedP50(rounds.floor[i]!), 2)}x`).join(" / "),
      ],
      ["median of the ratios", ({ medians }) => `${fixed(medians?.ratio ?? Number.NaN, 2)}x`],
    ],
    entries.map(([label, rounds]) => ({ label, rounds, medians: podCreateAdded(rounds) })),
    "Each round is one trial of the budget: the median of the rounds' ratios is what the budget table judges.",
  );
}
