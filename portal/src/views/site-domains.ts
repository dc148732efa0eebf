/**
 * A site's custom domains (spec §15) on its page: everyone sees where the site also answers;
 * admins attach and detach them, each after a dialog that says what happens.
 */
import { api } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h } from '../dom.ts';
import { sitePath } from '../format.ts';
import type { Site } from '../types.ts';

/** The address a custom domain serves the site at: the site's own scheme (https in production). */
export function domainUrl(site: Site, domain: string): string {
  const scheme = /^http:/.test(site.url) ? 'http:' : 'https:';
  return `${scheme}//${domain}/`;
}

/** The "Custom domains" value of the site's details: links, and for admins the detach and attach buttons. */
export function domainsValue(site: Site, isAdmin: boolean, onDone: () => void): HTMLElement | null {
  const domains = site.domains ?? [];
  if (domains.length === 0 && !isAdmin) return null;
  const items = domains.map((domain) =>
    h(
      'li',
      null,
      h('a', { href: domainUrl(site, domain), target: '_blank', rel: 'noopener' }, breakable(domain)),
      isAdmin ? h('button', { type: 'button', 'aria-label': `Detach ${domain}`, onclick: () => void detach(site, domain, onDone) }, 'Detach') : null,
    ),
  );
  return h(
    'div',
    { class: 'domains' },
    domains.length ? h('ul', { class: 'domain-list', 'aria-label': 'Custom domains' }, items) : h('span', { class: 'muted' }, 'None'),
    isAdmin && !site.deleted_at ? h('button', { type: 'button', onclick: () => void attach(site, onDone) }, 'Attach a domain…') : null,
  );
}

/** The name with a line-break opportunity before each dot, so a narrow screen wraps it between labels. */
function breakable(domain: string): (string | HTMLElement)[] {
  return domain.split('.').flatMap((label, i) => (i === 0 ? [label] : [h('wbr'), `.${label}`]));
}

async function attach(site: Site, onDone: () => void): Promise<void> {
  const input = h('input', { id: 'domain-name', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'docs.example.com', inputmode: 'url' });
  const ok = await confirmDialog({
    title: `Attach a custom domain to ${sitePath(site)}`,
    body: [
      h('p', { class: 'field' }, h('label', { for: 'domain-name' }, 'Domain'), input),
      h('p', { class: 'muted small' }, 'A lower-case host name such as docs.example.com, not under this service’s own domain. Point its DNS at this service’s proxy; the site answers there at once, and with on-demand HTTPS the proxy obtains its certificate on the first visit. A domain belongs to one site at a time.'),
    ],
    confirmLabel: 'Attach',
    action: () => {
      const name = input.value.trim();
      return api.attachDomain(sitePath(site), name);
    },
  });
  if (ok) {
    toast(`${input.value.trim()} now serves ${sitePath(site)}.`);
    onDone();
  }
}

async function detach(site: Site, domain: string, onDone: () => void): Promise<void> {
  const ok = await confirmDialog({
    title: `Detach ${domain}?`,
    body: h('p', null, `${sitePath(site)} stops answering at `, h('code', null, domain), ' at once, and the domain is free for any site. The site itself is not changed.'),
    confirmLabel: 'Detach',
    danger: true,
    action: () => api.detachDomain(sitePath(site), domain),
  });
  if (ok) {
    toast(`${domain} was detached.`);
    onDone();
  }
}
