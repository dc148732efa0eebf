import type { Queries } from '../projections/queries.ts';

/**
 * Which site a custom domain belongs to (spec §15), for the site server: the read model's
 * indexed lookup, remembered per name and tagged with the checkpoint it was read at, like the
 * site server's documents (host/serve-site.ts says why that is read-your-writes). A name no
 * site has is remembered too (any Host may be sent), so the memory is bounded.
 */
export type DomainLookup = {
  /** The full path of the site `name` is attached to (live or in the trash), as of `checkpoint`; undefined when none. */
  path(name: string, checkpoint: string | undefined): Promise<string | undefined>;
};

const DOMAINS_MAX = 10_000;

type Entry = { readonly checkpoint: string | undefined; readonly path: string | undefined };

export function createDomainLookup(queries: Pick<Queries, 'siteByDomain'>, currentCheckpoint: () => Promise<string | undefined>): DomainLookup {
  const known = new Map<string, Entry>();
  return {
    async path(name, checkpoint) {
      const hit = known.get(name);
      if (hit && hit.checkpoint === checkpoint) return hit.path;
      const entry: Entry = { checkpoint, path: (await queries.siteByDomain(name))?.path };
      // Kept only if nothing was applied while reading (the answer may be newer than `checkpoint`, never older).
      if ((await currentCheckpoint()) === checkpoint) {
        known.delete(name);
        known.set(name, entry);
        if (known.size > DOMAINS_MAX) known.delete(known.keys().next().value!);
      }
      return entry.path;
    },
  };
}
