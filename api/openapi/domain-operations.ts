import { DomainParam } from '../../app/contract/domains.ts';
import { Site } from '../../app/contract/site.ts';
import { empty, json, type Operation } from './operation.ts';

/** Custom domains (spec §15): attach and detach, admins only. */
export const domains: Operation[] = [
  {
    id: 'attachDomain',
    method: 'put',
    path: '/api/sites/{site}/domains/{domain}',
    tag: 'sites',
    auth: 'admin',
    summary: 'Attach a custom domain to a site',
    description:
      'The live site also answers at the domain, with every rule of its own host. A domain belongs to at most one site (another site’s → 409) and a site has at most 10 (409). ' +
      'Attaching a domain the site already has changes nothing and answers the site. The site must be live (404 otherwise). ' +
      'The domain’s DNS points at the TLS proxy; with on-demand TLS the proxy then obtains its certificate on the first request.',
    params: { domain: DomainParam },
    ok: { status: 200, reply: json(Site, 'the site, its domains included') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'detachDomain',
    method: 'delete',
    path: '/api/sites/{site}/domains/{domain}',
    tag: 'sites',
    auth: 'admin',
    summary: 'Detach a custom domain from a site',
    description: 'The site stops answering at the domain at once, and the domain is free for any site. Also on a site in the trash. 404 when the domain is not attached to that site.',
    params: { domain: DomainParam },
    ok: { status: 204, reply: empty('detached') },
    errors: [400, 401, 403, 404, 409],
  },
];
