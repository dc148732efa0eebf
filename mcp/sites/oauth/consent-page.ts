import { CAPABILITIES, type Capability } from '../../../domain/grants.ts';
import type { OAuthClientDoc } from '../../../projections/documents.ts';
import { PARAM_NAMES, type AuthorizeParams } from './authorize-request.ts';

export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const CAPABILITY_TEXT: Record<Capability, string> = {
  publish: 'publish — create and replace sites, restore unpublished ones',
  unpublish: 'unpublish — take sites offline (files are kept)',
  rollback: 'rollback — list revisions and roll back',
  patch: 'patch — edit titles, descriptions, tags…',
  purge: 'purge — destroy unpublished sites for good',
};

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.35rem}fieldset{border:1px solid #cfd5df;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
label{display:block;margin:.3rem 0}input[type=text]{font:inherit;padding:.15rem .35rem;width:16rem}
.err{background:#fde8e8;border:1px solid #e5a0a0;padding:.5rem 1rem;border-radius:6px}
.actions button{font:inherit;padding:.4rem 1.1rem;margin-right:.6rem}.muted{color:#5b6475}code{background:#f1f3f7;padding:0 .25rem}`;

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${esc(title)}</h1><p>${esc(message)}</p>`);
}

/** What the approver picked (or the prefill): target kind and text, capabilities. */
export type ConsentChoice = { kind: 'all' | 'group' | 'site'; group: string; site: string; caps: readonly string[] };

/** The consent screen: names the client and lets the approver choose the target and capabilities. */
export function consentPage(opts: {
  client: OAuthClientDoc;
  params: AuthorizeParams;
  user: string;
  csrf: string;
  base: string;
  choice: ConsentChoice;
  error?: string;
}): string {
  const { client, params, choice } = opts;
  const hidden = PARAM_NAMES.map((n) => `<input type="hidden" name="${n}" value="${esc(params[n])}">`).join('');
  const redirectHost = (() => {
    try {
      const u = new URL(params.redirect_uri);
      return u.host || u.protocol;
    } catch {
      return params.redirect_uri;
    }
  })();
  const radio = (kind: ConsentChoice['kind'], label: string, extra = '') =>
    `<label><input type="radio" name="target_kind" value="${kind}"${choice.kind === kind ? ' checked' : ''}> ${label}${extra}</label>`;
  const caps = CAPABILITIES.map(
    (c) => `<label><input type="checkbox" name="caps" value="${c}"${choice.caps.includes(c) ? ' checked' : ''}> ${esc(CAPABILITY_TEXT[c])}</label>`,
  ).join('');
  return page(
    `Connect ${client.name}`,
    `<h1>Allow <strong>${esc(client.name)}</strong> to publish sites?</h1>
<p>An MCP client called <strong>${esc(client.name)}</strong>${client.clientUri ? ` (<a href="${esc(client.clientUri)}" rel="noreferrer">${esc(client.clientUri)}</a>)` : ''}
asks to act on <code>${esc(opts.base)}</code> for you, <strong>${esc(opts.user)}</strong>. After you approve, you are sent back to <code>${esc(redirectHost)}</code>.</p>
${opts.error ? `<p class="err" role="alert">${esc(opts.error)}</p>` : ''}
<form method="post" action="/mcp/oauth/authorize">${hidden}<input type="hidden" name="csrf" value="${esc(opts.csrf)}">
<fieldset><legend>Which sites</legend>
${radio('group', 'A group and everything beneath it: ', ` <input type="text" name="target_group" value="${esc(choice.group)}" aria-label="group" placeholder="e.g. docs">`)}
${radio('site', 'One site: ', ` <input type="text" name="target_site" value="${esc(choice.site)}" aria-label="site" placeholder="e.g. docs/app">`)}
${radio('all', 'All sites')}
</fieldset>
<fieldset><legend>What it may do there</legend>${caps}</fieldset>
<p class="muted">The connection can never act outside what you pick here. An admin can revoke it at any time.</p>
<p class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}
