import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type IndexDescription } from 'mongodb';
import { applyTreeChanges, ROOT, treeNodesOf, type TreeNodeDoc, type TreeSiteChange } from '../../projections/site-tree.ts';
import type { StreamDocument, TreeDocument } from './mongo-documents.ts';

export type { TreeDocument } from './mongo-documents.ts';
import { liveSitesQuery } from './mongo-queries.ts';

/** Reads by version: the nodes written since a reader last looked, and the newest version the checkpoint covers. */
export const TREE_INDEXES: IndexDescription[] = [{ name: 'tree_version', key: { version: 1 } }];

const DUPLICATE_KEY = 11000;
/** Nodes per bulk write: a batch moves a few hundred at most (each site's group and its ancestors). */
const WRITE_CHUNK = 1_000;
const LOAD_CHUNK = 5_000;

type Write = AnyBulkWriteOperation<TreeDocument>;

/**
 * Applies a batch's site entries to the tree: loads the nodes they touch, applies them
 * (pure), and writes every node that changed, stamped `version`. Runs after the batch's
 * stream documents and before its checkpoint, with the entries of every site the batch
 * touched as stored (`treeStateOf`), so that a batch coming again after a crash between the
 * documents and the nodes (its documents ahead, so it moves nothing) still sets them. Each
 * node update is a function of the stored node and the entries (an entry set twice changes
 * nothing; the counts of every ancestor are taken again), so applying a batch again leaves
 * the same nodes. A node is written only over a version at or below `version`: a projector
 * whose lease overlapped and that read further in the log wrote a later state (one that
 * holds every event of this batch, the log being ordered), which this batch must not take back.
 */
export async function updateTree(tree: Collection<TreeDocument>, siteChanges: readonly TreeSiteChange[], version: string): Promise<void> {
  if (siteChanges.length === 0) return;
  const paths = treeNodesOf(siteChanges);
  const loaded = new Map<string, TreeNodeDoc>();
  for (let i = 0; i < paths.length; i += LOAD_CHUNK) {
    for (const d of await tree.find({ _id: { $in: paths.slice(i, i + LOAD_CHUNK) } }, { projection: { node: 1 } }).toArray()) loaded.set(d._id, d.node);
  }
  await writeTree(tree, applyTreeChanges(loaded, siteChanges), version);
}

/** Writes changed nodes (null: the group holds no live site any more) guarded by version; exported for the scripted tests. */
export async function writeTree(tree: Pick<Collection<TreeDocument>, 'bulkWrite'>, nodes: ReadonlyMap<string, TreeNodeDoc | null>, version: string): Promise<void> {
  const ops: Write[] = [];
  for (const [path, node] of nodes) {
    const filter = { _id: path, version: { $lte: version } };
    ops.push(node ? { replaceOne: { filter, replacement: { version, node }, upsert: true } } : { deleteOne: { filter } });
  }
  for (let i = 0; i < ops.length; i += WRITE_CHUNK) {
    const collided = await bulk(tree, ops.slice(i, i + WRITE_CHUNK));
    // An upsert whose guard found nothing inserts, and fails on `_id` if the node exists at a
    // later version (then it stays) or another projector inserted it meanwhile: again, without
    // upsert, the guard alone decides.
    if (collided.length > 0) {
      const again = await bulk(tree, collided.map((op) => ({ replaceOne: { ...(op as { replaceOne: object }).replaceOne, upsert: false } }) as Write));
      if (again.length > 0) throw new Error(`a guarded tree node replacement without upsert failed on a duplicate _id (${again.length})`);
    }
  }
}

async function bulk(tree: Pick<Collection<TreeDocument>, 'bulkWrite'>, ops: Write[]): Promise<Write[]> {
  try {
    await tree.bulkWrite(ops, { ordered: false });
    return [];
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    const duplicates = errors.filter((e) => e.code === DUPLICATE_KEY && /index: _id_ /.test(e.errmsg ?? ''));
    if (duplicates.length !== errors.length || err.writeConcernError || errors.length === 0) throw err;
    return duplicates.map((e) => ops[e.index]!);
  }
}

/**
 * The tree made from the stored site documents (every live site's group, slug, revision and
 * visibility, read from an index), written over whatever nodes there were: once, when a read
 * model projected before the tree existed starts its next batch. Reads every live site
 * (seconds at 100,000 sites).
 */
export async function rebuildTree(streams: Collection<StreamDocument>, tree: Collection<TreeDocument>, version: string): Promise<void> {
  const spec = liveSitesQuery();
  const changes: TreeSiteChange[] = [];
  const found = streams.find(spec.filter, { projection: { _id: 0, grp: 1, slug: 1, revision: 1, hidden: 1 }, hint: spec.hint });
  for await (const d of found) changes.push({ group: d.grp!, slug: d.slug!, entry: { slug: d.slug!, revision: d.revision, hidden: d.hidden === true } });
  const nodes = applyTreeChanges(new Map(), changes);
  if (!nodes.has(ROOT)) nodes.set(ROOT, { path: ROOT, sites: [], groups: [], live: 0, visible: 0 });
  const ops: Write[] = [...nodes].map(([path, node]) => ({ replaceOne: { filter: { _id: path }, replacement: { version, node: node! }, upsert: true } }));
  for (let i = 0; i < ops.length; i += WRITE_CHUNK) await tree.bulkWrite(ops.slice(i, i + WRITE_CHUNK), { ordered: false });
  await tree.deleteMany({ _id: { $nin: [...nodes.keys()] } });
}
