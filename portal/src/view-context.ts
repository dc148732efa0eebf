import type { Route } from './router.ts';
import type { Me } from './types.ts';

// Apart from main.ts, which imports every view: a view importing main.ts would close a cycle.
/**
 * What every view receives: the user, its container, a signal aborted when the view is left,
 * and `stay`: a view that can show a new URL itself (another tab, a diff) registers a handler
 * that returns true when it took the route, so the page is not drawn anew.
 */
export type ViewContext = { me: Me; main: HTMLElement; signal: AbortSignal; stay: (handler: (r: Route) => boolean) => void };
