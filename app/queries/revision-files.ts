import type { Readable } from 'node:stream';
import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { fileTree } from '../../domain/file-tree.ts';
import type { Manifest } from '../../domain/manifest.ts';
import { revisionTime } from '../../domain/revision-id.ts';
import { readableSite } from '../authorize.ts';
import type { FileNode } from '../contract/file-tree.ts';
import type { RevisionInput } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';
import { findRevision } from './sites.ts';

/** The manifest of one retained revision of a site the identity may read (`current`: the live one). */
async function revisionManifest(deps: AppDeps, identity: Identity, input: RevisionInput) {
  const site = await readableSite(deps, identity, input.site);
  const revision = findRevision(site, input.revision);
  const manifest = await deps.manifests.get(revision.manifest);
  if (!manifest) throw new NotFoundError('the revision manifest is missing');
  return { site, revision, manifest };
}

/** `GET /api/sites/{path}/revisions/{rev}/files` (spec §5): the revision's file tree. */
export async function revisionFiles(deps: AppDeps, identity: Identity, input: RevisionInput): Promise<FileNode> {
  return fileTree((await revisionManifest(deps, identity, input)).manifest.files);
}

/** `GET …/revisions/{rev}/file?path=` (spec §5): one file's bytes; the route sends them as an inert download. */
export async function revisionFile(deps: AppDeps, identity: Identity, input: RevisionInput & { readonly path: string }): Promise<{ name: string; size: number; stream: Readable }> {
  const { manifest } = await revisionManifest(deps, identity, input);
  const entry = manifest.files.get(input.path);
  const stream = entry && (await deps.blobs.get(entry.hash));
  if (!entry || !stream) throw new NotFoundError(`no file ${input.path} in this revision`);
  return { name: input.path.slice(input.path.lastIndexOf('/') + 1), size: entry.size, stream };
}

/**
 * `GET …/revisions/{rev}/archive` (spec §5): what a zip of the revision needs (the route
 * streams it): its name, its files, their date, and how to open each one when the zip
 * reaches it.
 */
export async function revisionArchive(
  deps: AppDeps,
  identity: Identity,
  input: RevisionInput,
): Promise<{ filename: string; manifest: Manifest; date: Date; open: (hash: string) => Promise<Readable | undefined> }> {
  const { site, revision, manifest } = await revisionManifest(deps, identity, input);
  return {
    filename: `${site.path.replaceAll('/', '-')}-${revision.id}.zip`,
    manifest,
    date: new Date(revisionTime(revision.id)),
    open: (hash) => deps.blobs.get(hash),
  };
}
