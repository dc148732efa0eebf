/**
 * The archive path rules live in the domain (domain/file-paths.ts), shared with the
 * manifest check of incremental deploys; re-exported here for the archive readers.
 */
export { createPathRegistry, entrySegments, normaliseEntryPath, shown, type PathRegistry } from '../../domain/file-paths.ts';
