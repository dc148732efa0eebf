import { z } from 'zod';

/** `FileNode` (spec §3): directories first, then by name; the root has empty name and path. */
export type FileNode = { name: string; path: string; dir: boolean; size?: number; children?: FileNode[] };
export const FileNode: z.ZodType<FileNode> = z.lazy(() =>
  z
    .object({
      name: z.string(),
      path: z.string().meta({ description: 'relative to the site root, slash-separated' }),
      dir: z.boolean(),
      size: z.int().nonnegative().optional().meta({ description: 'bytes (files only)' }),
      children: z.array(FileNode).optional().meta({ description: 'directories only' }),
    })
    .meta({ description: 'A file or directory of a revision.' }),
);
