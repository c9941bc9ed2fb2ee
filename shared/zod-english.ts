/**
 * English messages for our zod schemas. They use zod/mini, whose functional API lets bundlers keep only
 * what is used (the Worker bundle is 20 KiB smaller gzipped than with classic zod: test/bench/RESULTS.md),
 * but which loads no locale: without this, every problem would read "Invalid input". Imported for its
 * effect by each file that declares a schema; zod keeps one global configuration.
 */
import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

config(en());
