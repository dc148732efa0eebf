/**
 * A revision's `_redirects` and `_headers`, parsed once at publish and stored with the
 * revision as one JSON blob (spec §11). The site server compiles it once per revision.
 */
import { ValidationError } from '../errors.ts';
import { compileHeaders, parseHeaders, type CompiledHeaders, type HeaderBlock } from './headers.ts';
import { compileRedirects, parseRedirects, type CompiledRedirects, type RedirectRule } from './redirects.ts';

export type SiteRules = { readonly v: 1; readonly redirects: readonly RedirectRule[]; readonly headers: readonly HeaderBlock[] };
export type CompiledRules = { readonly redirects: CompiledRedirects; readonly headers: CompiledHeaders };

/** The two files, at the site's root; neither is ever served itself. */
export const RULE_FILES: ReadonlySet<string> = new Set(['_redirects', '_headers']);
/** Far more than 1,000 rules need: a bigger file is refused rather than read. */
export const MAX_RULES_FILE_BYTES = 1024 * 1024;

/** Parses whichever of the two files the revision has; undefined when it has neither. */
export function parseSiteRules(files: { readonly redirects?: string; readonly headers?: string }): SiteRules | undefined {
  if (files.redirects === undefined && files.headers === undefined) return undefined;
  return { v: 1, redirects: files.redirects === undefined ? [] : parseRedirects(files.redirects), headers: files.headers === undefined ? [] : parseHeaders(files.headers) };
}

export function serializeSiteRules(rules: SiteRules): Buffer {
  return Buffer.from(JSON.stringify(rules));
}

export function compileSiteRules(bytes: Buffer): CompiledRules {
  const rules = JSON.parse(bytes.toString('utf8')) as SiteRules;
  if (rules.v !== 1) throw new ValidationError('unknown rules format');
  return { redirects: compileRedirects(rules.redirects), headers: compileHeaders(rules.headers) };
}
