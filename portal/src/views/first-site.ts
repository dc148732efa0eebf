/**
 * The empty site list, for admins: how to publish a first site, as commands to copy. They
 * name this service by the address the browser reached it at, so they work pasted.
 */
import { h } from '../dom.ts';
import { copyButton } from '../widgets.ts';

/** The two ways to publish from a shell or CI, against the service at `origin` (`https://sites.example.com`). */
export function firstSiteCommands(origin: string): { cli: string; curl: string } {
  return {
    cli: [`curl -fsSL ${origin}/cli/sites.mjs -o sites.mjs`, 'node sites.mjs publish dist --site docs/app --title "My site"'].join('\n'),
    curl: [
      'tar czf site.tgz -C dist .',
      'curl -H "Authorization: Bearer $SITES_KEY" \\',
      `     -F 'meta={"group":"docs","slug":"app","title":"My site"}' \\`,
      `     -F bundle=@site.tgz ${origin}/ingest/sites`,
    ].join('\n'),
  };
}

function command(id: string, text: string, what: string): HTMLElement {
  const code = h('code', { id }, text);
  return h('div', { class: 'command' }, h('pre', { tabindex: '0', 'aria-label': what }, code), copyButton(text, what, () => code));
}

export function firstSiteGuide(origin: string, baseDomain: string): HTMLElement {
  const { cli, curl } = firstSiteCommands(origin);
  return h(
    'section',
    { class: 'first-site panel', 'aria-labelledby': 'first-site-title' },
    h('h2', { id: 'first-site-title' }, 'Publish your first site'),
    h(
      'p',
      null,
      'No sites have been published yet. A site is a folder with an ',
      h('code', null, 'index.html'),
      ' at its top, here ',
      h('code', null, 'dist'),
      '. Create a key in ',
      h('a', { href: '/keys' }, 'API Keys'),
      ' and put its token in your shell (or your CI’s secrets): ',
      h('code', null, 'export SITES_KEY=key_…'),
    ),
    h('h3', null, 'With the command-line client'),
    h('p', { class: 'muted small' }, 'Needs Node 20 or later. It uploads only the files the site does not have yet.'),
    command('first-site-cli', cli, 'the command-line client commands'),
    h('h3', null, 'Or in one request, with curl'),
    h('p', { class: 'muted small' }, 'Sends the whole folder as an archive.'),
    command('first-site-curl', curl, 'the curl commands'),
    h('p', { class: 'muted small' }, 'Either way the site is then served at ', h('code', null, `app.docs.${baseDomain}`), '. Or press Publish a site to upload a folder or an archive from this browser.'),
  );
}
