/** What a CLOUD_TOKEN cloud is made of (one file per cloud beside this one, the set in index.ts). */
import type { Reader } from "../../config/reader.ts";
import type { VariableName } from "../../config/variables.ts";
import type { CloudTokenSettings } from "../cloud-token-source.ts";

/** What a cloud's reader is given: the reader, and helpers that name a variable as the caller knows it (a CLI flag). */
export interface CloudReadContext {
  read: Reader;
  /** The variable's name, or the flag that replaces it. */
  label: (name: VariableName) => string;
  /** The first of `names` that is set, a problem recorded when it lacks its cloud's format. */
  first: (...names: VariableName[]) => string | undefined;
  /** Records `problem` with "A and B not set" for those of `names` that are unset. */
  requireSet: (names: VariableName[], problem: (unset: string) => string) => void;
}

/** One cloud whose own identity is a token source: CLOUD_TOKEN's value `kind`, its variables and reader, its reach. */
export interface Cloud<Settings extends CloudTokenSettings> {
  readonly kind: Settings["kind"];
  /** The variables only we read for it (not the platform's own, set anyway): setting one while another cloud is chosen is a problem. */
  readonly variables: readonly VariableName[];
  /** What a value must be, as it becomes part of a URL, and how a problem says so. */
  readonly formats: Partial<Record<VariableName, [{ test: (value: string) => boolean }, string]>>;
  /** Why a runtime without loopback or link-local addresses (Workers) cannot reach its endpoint; none when it signs locally. */
  readonly unreachable?: string;
  /** Its settings, undefined when a required variable is missing (a problem recorded). */
  read(context: CloudReadContext): Settings | undefined;
}
