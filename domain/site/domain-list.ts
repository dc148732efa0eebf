import type { SiteDomainEvent } from './events.ts';

// Apart from domains.ts (the commands, which read SiteState): state.ts folds with this, and
// importing domains.ts from there would close a cycle.

/** The domains after one of these events (kept sorted, so every reader lists them alike). */
export function evolveDomains(domains: readonly string[] | undefined, event: SiteDomainEvent): readonly string[] | undefined {
  const current = domains ?? [];
  const { domain } = event.data;
  if (event.type === 'DomainAttached') return current.includes(domain) ? domains : [...current, domain].sort();
  if (!current.includes(domain)) return domains;
  const rest = current.filter((d) => d !== domain);
  return rest.length > 0 ? rest : undefined;
}
