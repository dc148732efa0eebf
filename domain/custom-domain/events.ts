/**
 * Events of a custom domain's claim stream (`domain-<name>`, spec §15); the rules that
 * record them are in claim.ts.
 */
export type DomainClaimEvent =
  | {
      readonly type: 'DomainClaimed';
      readonly data: {
        readonly domain: string;
        /** The site's full path and the id of its incarnation. */
        readonly site: string;
        readonly siteId: number;
        /** The site stream's revision when claimed: its `DomainAttached` is appended with this one expected. */
        readonly siteRevision: number;
      };
    }
  | { readonly type: 'DomainReleased'; readonly data: { readonly domain: string; readonly site: string; readonly siteId: number } };
