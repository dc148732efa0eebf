import type { ManifestEntry } from './manifest.ts';

/** `FileNode` of spec §3: directories first, then by name. */
export type FileNode = { name: string; path: string; dir: boolean; size?: number; children?: FileNode[] };

export function fileTree(files: ReadonlyMap<string, ManifestEntry>): FileNode {
  const root: FileNode = { name: '', path: '', dir: true, children: [] };
  const dirs = new Map<string, FileNode>([['', root]]);
  const dirFor = (path: string): FileNode => {
    const existing = dirs.get(path);
    if (existing) return existing;
    const slash = path.lastIndexOf('/');
    const parent = dirFor(slash < 0 ? '' : path.slice(0, slash));
    const node: FileNode = { name: path.slice(slash + 1), path, dir: true, children: [] };
    parent.children!.push(node);
    dirs.set(path, node);
    return node;
  };
  for (const [path, entry] of files) {
    const slash = path.lastIndexOf('/');
    const parent = dirFor(slash < 0 ? '' : path.slice(0, slash));
    parent.children!.push({ name: path.slice(slash + 1), path, dir: false, size: entry.size });
  }
  const sort = (node: FileNode) => {
    node.children?.sort((a, b) => (a.dir !== b.dir ? (a.dir ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    node.children?.forEach(sort);
  };
  sort(root);
  return root;
}
