import { CAPABILITIES, type Capability } from '../../../domain/grants.ts';
import { PARAM_NAMES, type AuthClient, type AuthorizeParams } from './authorize-request.ts';
import { PAGE_STYLE } from './page-style.ts';

export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** What each capability lets the connector do, in plain words (the consent's summary and checkboxes). */
const CAPABILITY_TEXT: Record<Capability, { name: string; plain: string }> = {
  publish: { name: 'Publish', plain: 'publish new sites and replace the files of existing ones, and bring back unpublished ones' },
  unpublish: { name: 'Unpublish', plain: 'take sites offline (their files are kept in the trash)' },
  rollback: { name: 'Roll back', plain: 'see earlier versions of a site and switch back to one' },
  patch: { name: 'Edit details', plain: 'change titles, descriptions and tags' },
  purge: { name: 'Purge', plain: 'delete unpublished sites for good, with their files' },
  preview: { name: 'Preview', plain: 'publish and remove previews beside a live site, at their own addresses; never the live site itself' },
};

/** The service's pages around the consent: the portal's look, the signed-in user, no script. */
export function page(title: string, body: string, user?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${PAGE_STYLE}</style></head><body>
<header class="topbar"><span class="brand"><span class="logo" aria-hidden="true"></span>Sites</span>${user ? `<span class="whoami">Signed in as <strong>${esc(user)}</strong></span>` : ''}</header>
<main>${body}</main></body></html>`;
}

/**
 * An error page: what went wrong for the person, and the OAuth error code for whoever
 * builds the application. It links nowhere: the request could come from anyone.
 */
export function messagePage(title: string, message: string, code?: string, user?: string): string {
  return page(
    title,
    `<section class="panel" role="alert"><p class="eyebrow refused">Connection not possible</p><h1>${esc(title)}</h1><p class="lead">${esc(message)}</p>
<p class="muted">Nothing was shared and you were not sent anywhere. You can close this tab and start again from the application.</p>
${code ? `<p class="muted small">For the application's developer: <code>${esc(code)}</code></p>` : ''}</section>`,
    user,
  );
}

/** What the approver picked (or the prefill): target kind and text, capabilities. */
export type ConsentChoice = { kind: 'all' | 'group' | 'site'; group: string; site: string; caps: readonly string[] };

/** Where the choice reaches, in plain words with an example address. */
function wherePlain(choice: ConsentChoice, base: string): string {
  const host = (path: string) => path.split('/').reverse().join('.');
  if (choice.kind === 'all') return `on <strong>every site</strong> of <code>${esc(base)}</code>`;
  if (choice.kind === 'site') {
    const site = choice.site.trim();
    return site ? `on <strong>one site</strong>, <code>${esc(site)}</code> (<code>${esc(`${host(site)}.${base}`)}</code>)` : 'on the one site you name below';
  }
  const group = choice.group.trim();
  if (!group) return 'in the group you name below';
  return `on the sites of the group <code>${esc(group)}</code> and the groups beneath it (addresses like <code>${esc(`name.${host(group)}.${base}`)}</code>)`;
}

/** Where the answer goes after a decision: the host of the registered redirect URI. */
function redirectHost(uri: string): string {
  try {
    const u = new URL(uri);
    return u.host || u.protocol;
  } catch {
    return uri;
  }
}

/** Who is asking: the verified host of a metadata document, or the self-chosen name of a registration. */
function identity(client: AuthClient): string {
  if (client.metadataHost) {
    return `<div class="client"><span class="client-host">${esc(client.metadataHost)}</span>
<p class="muted small">The application is identified by <strong>${esc(client.metadataHost)}</strong>: this server read its description from <code>${esc(client.clientId)}</code>. It calls itself “${esc(client.name)}”.</p></div>`;
  }
  const uri = client.clientUri ? ` Its web site, by its own account: <a href="${esc(client.clientUri)}" rel="noreferrer">${esc(client.clientUri)}</a>.` : '';
  return `<div class="client"><span class="client-name">${esc(client.name)}</span>
<p class="muted small">This name was chosen by the application when it registered itself; nobody has checked it.${uri}</p></div>`;
}

/** The consent screen: says who asks and what it could do where, and lets the approver narrow it. */
export function consentPage(opts: {
  client: AuthClient;
  params: AuthorizeParams;
  user: string;
  csrf: string;
  base: string;
  choice: ConsentChoice;
  error?: string;
}): string {
  const { client, params, choice } = opts;
  const hidden = PARAM_NAMES.map((n) => `<input type="hidden" name="${n}" value="${esc(params[n])}">`).join('');
  const radio = (kind: ConsentChoice['kind'], label: string, extra = '') =>
    `<label class="option"><input type="radio" name="target_kind" value="${kind}"${choice.kind === kind ? ' checked' : ''}> <span>${label}</span>${extra}</label>`;
  const caps = CAPABILITIES.map(
    (c) =>
      `<label class="option"><input type="checkbox" name="caps" value="${c}"${choice.caps.includes(c) ? ' checked' : ''}> <span><strong>${CAPABILITY_TEXT[c].name}</strong>: ${esc(CAPABILITY_TEXT[c].plain)}</span></label>`,
  ).join('');
  const chosen = CAPABILITIES.filter((c) => choice.caps.includes(c));
  const summary = chosen.length
    ? `<ul class="can">${chosen.map((c) => `<li>${esc(CAPABILITY_TEXT[c].plain)}</li>`).join('')}</ul>`
    : '<p>Nothing yet: pick at least one thing below.</p>';
  const who = client.metadataHost ?? client.name;
  return page(
    `Connect ${who}`,
    `<section class="panel"><p class="eyebrow">Connection request for ${esc(opts.base)}</p>
${identity(client)}
<h1>Allow this application to act on your sites as ${esc(opts.user)}?</h1>
${opts.error ? `<p class="error" role="alert">${esc(opts.error)}</p>` : ''}
<div class="summary"><h2>If you approve, it can do this ${wherePlain(choice, opts.base)}:</h2>${summary}
<p class="muted small">It can also list the sites it may act on. It can do nothing else, anywhere else. An admin can revoke the connection at any time (Connections in the portal).</p></div>
<form method="post" action="/mcp/oauth/authorize">${hidden}<input type="hidden" name="csrf" value="${esc(opts.csrf)}">
<details${opts.error ? ' open' : ''}><summary>Change what it may do, and where</summary>
<p class="muted small">The summary above shows what is filled in when the page opened; what you choose here is what Approve grants.</p>
<fieldset><legend>Which sites</legend>
${radio('group', 'A group and everything beneath it', ` <input type="text" name="target_group" value="${esc(choice.group)}" aria-label="group" placeholder="e.g. docs">`)}
${radio('site', 'One site', ` <input type="text" name="target_site" value="${esc(choice.site)}" aria-label="site" placeholder="e.g. docs/app">`)}
${radio('all', 'All sites')}
</fieldset>
<fieldset><legend>What it may do there</legend>${caps}</fieldset>
</details>
<p class="muted small">After you decide, your browser goes back to <code>${esc(redirectHost(params.redirect_uri))}</code>.</p>
<div class="actions"><button type="submit" class="primary" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></div>
</form></section>`,
    opts.user,
  );
}
