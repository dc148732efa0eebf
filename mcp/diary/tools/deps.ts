/** What the tool handlers need from the process: the shared upstream client and a clock. */
import type { Upstream } from '../upstream/client.ts';
import { utcDate } from '../units/date.ts';

/** Handler dependencies; `now` is injectable so date defaults are testable. */
export type Deps = { upstream: Upstream; now: () => Date };

/** Today's date in UTC, the base of every date default. */
export const today = (deps: Deps): string => utcDate(deps.now());
