/**
 * Webhooks (admins): subscribe a URL to what happens (which types, which sites), see each
 * webhook's deliveries with their status, attempts and last answer, send one again, delete.
 * The signing secret is shown once, right after creating, like a key's token.
 */
import { api, describeError } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h, replace, stateLine, type Child } from '../dom.ts';
import { describeActor, formatTime } from '../format.ts';
import type { ViewContext } from '../view-context.ts';
import { dataTable } from '../table.ts';
import type { Delivery, Webhook, WebhookType } from '../types.ts';
import { copyButton, when } from '../widgets.ts';

const GROUPS: readonly { label: string; types: readonly [WebhookType, string][] }[] = [
  {
    label: 'Sites',
    types: [
      ['site.published', 'published'],
      ['site.patched', 'details edited'],
      ['site.rolled_back', 'rolled back'],
      ['site.unpublished', 'unpublished'],
      ['site.restored', 'restored'],
      ['site.purged', 'purged'],
    ],
  },
  {
    label: 'Previews',
    types: [
      ['preview.published', 'published'],
      ['preview.removed', 'removed'],
    ],
  },
  {
    label: 'Keys',
    types: [
      ['key.issued', 'created'],
      ['key.revoked', 'revoked'],
    ],
  },
  {
    label: 'MCP connections',
    types: [
      ['connection.granted', 'approved'],
      ['connection.revoked', 'revoked'],
    ],
  },
];

const targetText = (t: string) => (t === '' ? 'all sites' : t);

function deliveryStatus(d: Delivery): Child {
  if (d.status === 'succeeded') return h('span', { class: 'badge ok' }, 'Delivered');
  if (d.status === 'failed') return h('span', { class: 'badge warn' }, 'Failed');
  // Never tried: due now, or waiting behind an older delivery of the same webhook (they go in log order).
  if (d.attempts === 0) return h('span', { class: 'badge', title: 'Sent once the deliveries before it are done' }, 'Waiting');
  return [h('span', { class: 'badge' }, 'Retrying'), d.next_attempt_at ? h('span', { class: 'status-detail muted' }, 'next ', when(d.next_attempt_at)) : null];
}

function lastAnswer(d: Delivery): Child {
  if (d.attempts === 0) return h('span', { class: 'muted' }, '—');
  const code = d.last_status !== undefined ? h('code', { class: d.last_status >= 200 && d.last_status < 300 ? 'ok' : 'bad' }, String(d.last_status)) : null;
  return [code, d.last_error ? h('span', { class: 'answer-error', title: d.last_error }, code ? ` ${d.last_error}` : d.last_error) : null, d.last_attempt_at ? h('span', { class: 'status-detail muted' }, when(d.last_attempt_at)) : null];
}

async function renderDeliveries(ctx: ViewContext, id: string): Promise<void> {
  const { main, signal } = ctx;
  const body = h('div', { class: 'deliveries' }, stateLine('Loading deliveries…'));
  const head = h('div', { class: 'page-head' }, h('h1', null, 'Deliveries'));
  replace(main, h('a', { class: 'back', href: '/webhooks' }, '← All webhooks'), head, body);
  const hook = (await api.webhooks(signal)).webhooks.find((w) => w.id === id);
  if (!hook) {
    replace(body, h('p', { class: 'state error', role: 'alert' }, 'There is no such webhook (it may have been deleted).'));
    return;
  }
  document.title = `Deliveries · ${hook.url} · Sites`;
  replace(head, h('h1', null, 'Deliveries'), h('p', { class: 'muted webhook-url' }, h('code', null, hook.url)));

  async function again(d: Delivery): Promise<void> {
    try {
      await api.redeliver(id, d.id);
      toast('Sending it again.');
      await load();
    } catch (err) {
      toast(describeError(err));
    }
  }

  async function load(): Promise<void> {
    try {
      const { deliveries } = await api.deliveries(id, signal);
      if (deliveries.length === 0) {
        replace(body, stateLine(`Nothing sent yet. This webhook hears of ${hook!.events.join(', ')} on ${targetText(hook!.target)}, from when it was created.`));
        return;
      }
      replace(
        body,
        h('div', { class: 'page-actions' }, h('button', { type: 'button', onclick: () => void load() }, 'Refresh')),
        dataTable({
          caption: `Deliveries to ${hook!.url}`,
          class: 'deliveries-table',
          columns: [{ label: 'Event' }, { label: 'Status' }, { label: 'Attempts', class: 'num' }, { label: 'Last answer' }, { label: 'Happened', class: 'nowrap' }, { label: 'Actions', srOnly: true }],
          rows: deliveries.map((d) => ({
            attrs: { 'data-delivery-id': d.id, 'data-status': d.status },
            cells: [
              [h('strong', null, d.type), d.site ? [' ', h('a', { href: `/sites/${d.site}` }, d.site)] : null, h('span', { class: 'status-detail muted', title: 'webhook-id' }, d.id)],
              deliveryStatus(d),
              String(d.attempts),
              lastAnswer(d),
              when(d.created_at),
              // Never tried yet: it goes out on its own once the deliveries before it are done.
              d.attempts === 0 ? null : h('button', { type: 'button', 'aria-label': `Send ${d.id} again`, onclick: () => void again(d) }, 'Send again'),
            ],
          })),
        }),
      );
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      replace(body, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    }
  }
  await load();
}

export async function renderWebhooks(ctx: ViewContext, id?: string): Promise<void> {
  if (id) return renderDeliveries(ctx, id);
  const { main, signal } = ctx;
  document.title = 'Webhooks · Sites';
  const list = h('div', { class: 'webhooks-list' }, stateLine('Loading webhooks…'));
  const secretBox = h('div', { class: 'token-box', hidden: true, tabindex: '-1' });
  const url = h('input', { id: 'hook-url', type: 'url', required: true, placeholder: 'https://hooks.example.com/sites', autocomplete: 'off' });
  const target = h('input', { id: 'hook-target', type: 'text', placeholder: 'all sites, or docs, or docs/app', autocomplete: 'off' });
  const description = h('input', { id: 'hook-description', type: 'text', maxlength: 500, autocomplete: 'off' });
  const boxes = new Map<WebhookType, HTMLInputElement>();
  const types = h(
    'fieldset',
    { class: 'hook-types' },
    h('legend', null, 'Send'),
    GROUPS.map((g) =>
      h(
        'div',
        { class: 'type-group' },
        h('span', { class: 'type-group-label' }, g.label),
        h(
          'span',
          { class: 'type-boxes' },
          g.types.map(([type, label]) => {
            const box = h('input', { type: 'checkbox', id: `hook-${type}`, value: type, checked: type === 'site.published' });
            boxes.set(type, box);
            return h('label', { class: 'check', for: `hook-${type}`, title: type }, box, ` ${label}`);
          }),
        ),
      ),
    ),
  );
  const formError = h('p', { class: 'error', role: 'alert', hidden: true });
  const form = h(
    'form',
    { class: 'key-form hook-form', 'aria-labelledby': 'create-hook-title', novalidate: true },
    h('h2', { id: 'create-hook-title' }, 'Add a webhook'),
    h('p', { class: 'field' }, h('label', { for: 'hook-url' }, 'URL'), url),
    types,
    h('p', { class: 'field' }, h('label', { for: 'hook-target' }, 'Sites (site and preview events; empty = all)'), target),
    h('p', { class: 'field' }, h('label', { for: 'hook-description' }, 'Description (optional)'), description),
    formError,
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add webhook')),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError.hidden = true;
    const fail = (msg: string) => {
      formError.textContent = msg;
      formError.hidden = false;
    };
    const events = [...boxes].filter(([, b]) => b.checked).map(([t]) => t);
    if (!url.value.trim()) return fail('Give the URL the events are sent to.');
    if (events.length === 0) return fail('Choose at least one event.');
    const submit = form.querySelector('button[type=submit]') as HTMLButtonElement;
    submit.disabled = true;
    try {
      const created = await api.createWebhook({
        url: url.value.trim(),
        events,
        target: target.value.trim().replace(/^\/+|\/+$/g, ''),
        ...(description.value.trim() ? { description: description.value.trim() } : {}),
      });
      showSecret(created);
      form.reset();
      boxes.get('site.published')!.checked = true;
      await load();
    } catch (err) {
      fail(describeError(err));
    } finally {
      submit.disabled = false;
    }
  });

  function showSecret(hook: Webhook & { secret: string }): void {
    const code = h('code', { id: 'new-secret' }, hook.secret);
    replace(
      secretBox,
      h('h2', null, 'Webhook added'),
      h('p', null, 'Its signing secret, for your receiver to verify deliveries (Standard Webhooks). Copy it now: it is shown only this once.'),
      h('div', { class: 'token-line' }, code, copyButton(hook.secret, 'the secret', () => code)),
      h('button', { type: 'button', class: 'link', onclick: () => (secretBox.hidden = true) }, 'I have stored it, hide the secret'),
    );
    secretBox.hidden = false;
    secretBox.focus();
  }

  async function remove(hook: Webhook): Promise<void> {
    const ok = await confirmDialog({
      title: 'Delete this webhook?',
      body: h('p', null, `Nothing more is sent to ${hook.url}, including deliveries still waiting for a retry.`),
      confirmLabel: 'Delete',
      danger: true,
      action: () => api.deleteWebhook(hook.id),
    });
    if (ok) {
      toast('The webhook was deleted.');
      await load();
    }
  }

  async function load(): Promise<void> {
    try {
      const { webhooks } = await api.webhooks(signal);
      if (webhooks.length === 0) {
        replace(list, stateLine('No webhooks yet. Add one below to tell a chat channel, a deploy tracker or a pipeline when sites are published.'));
        return;
      }
      replace(
        list,
        dataTable({
          caption: 'Webhooks',
          class: 'webhooks-table',
          columns: [{ label: 'URL' }, { label: 'Events' }, { label: 'Sites' }, { label: 'Created', class: 'nowrap' }, { label: 'Actions', srOnly: true }],
          rows: webhooks.map((w) => ({
            attrs: { 'data-webhook-id': w.id },
            cells: [
              [h('code', { class: 'webhook-url' }, w.url), w.description ? h('span', { class: 'status-detail muted' }, w.description) : null],
              h('span', { class: 'type-list' }, w.events.map((t) => h('span', { class: 'badge' }, t))),
              targetText(w.target),
              [when(w.created_at), h('span', { class: 'status-detail muted', title: formatTime(w.created_at, { seconds: true }) }, `by ${describeActor(w.created_by, { short: true })}`)],
              h(
                'span',
                { class: 'row-actions' },
                h('a', { href: `/webhooks/${w.id}`, class: 'button' }, 'Deliveries'),
                h('button', { type: 'button', class: 'danger', 'aria-label': `Delete webhook ${w.url}`, onclick: () => void remove(w) }, 'Delete'),
              ),
            ],
          })),
        }),
      );
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      replace(list, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    }
  }

  replace(
    main,
    h('div', { class: 'page-head' }, h('h1', null, 'Webhooks')),
    h(
      'p',
      { class: 'muted' },
      'Signed POSTs to your URLs when things happen, following the Standard Webhooks specification: retried with growing delays for 24 hours, in order for each webhook. ',
      h('a', { href: '/activity' }, 'Activity'),
      ' shows everything that happened.',
    ),
    secretBox,
    list,
    form,
  );
  await load();
}
