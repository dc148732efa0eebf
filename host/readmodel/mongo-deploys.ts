import type { Collection, Db } from 'mongodb';
import type { Deploy, DeployBlob } from '../../domain/deploy/deploy.ts';
import type { ReadModel } from '../../projections/read-model.ts';

/** One deploy: the `Deploy` itself, keyed by its id. */
export type DeployDocument = Omit<Deploy, 'id'> & { _id: string };
/** One distinct digest of a deploy's manifest (`_id`: `<deploy>/<hash>`); `size` null until a required one is uploaded. */
export type DeployBlobDocument = { _id: string; d: string; h: string; required: boolean; size: number | null };

type DeployMethods = Pick<
  ReadModel,
  'createDeploy' | 'getDeploy' | 'getDeployBlob' | 'listDeployBlobs' | 'recordDeployUpload' | 'setDeployStatus' | 'listExpiredDeploys' | 'deleteDeploy'
>;

const blobId = (deploy: string, hash: string) => `${deploy}/${hash}`;
const toDeploy = ({ _id, ...rest }: DeployDocument): Deploy => ({ id: _id, ...rest });
const toBlob = (d: DeployBlobDocument): DeployBlob => ({ hash: d.h, required: d.required, ...(d.size === null || d.size === undefined ? {} : { size: d.size }) });

/** The collections of incremental deploys and their indexes (made at open, idempotent). */
export async function deployCollections(db: Db): Promise<{ deploys: Collection<DeployDocument>; deployBlobs: Collection<DeployBlobDocument> }> {
  const deploys = db.collection<DeployDocument>('deploys');
  const deployBlobs = db.collection<DeployBlobDocument>('deploy_blobs');
  await deploys.createIndexes([
    { name: 'deploy_expiry', key: { expiresAt: 1, _id: 1 } },
    { name: 'deploy_manifest', key: { manifest: 1 } },
  ]);
  await deployBlobs.createIndexes([
    // The digests of one deploy, in the order listDeployBlobs returns them.
    { name: 'deploy_blob_deploy_hash', key: { d: 1, h: 1 } },
    { name: 'deploy_blob_hash', key: { h: 1 } },
  ]);
  // An earlier version's index on the deploy alone, which left listDeployBlobs a sort in memory.
  if ((await deployBlobs.listIndexes().toArray()).some((i) => i.name === 'deploy_blob_deploy')) await deployBlobs.dropIndex('deploy_blob_deploy');
  return { deploys, deployBlobs };
}

/**
 * Incremental deploys in MongoDB. Without multi-document transactions, an upload is two
 * guarded single-document updates: the digest is marked (only if required and not yet
 * marked), then the byte total is incremented only if it stays within the limit (`$inc`
 * under a filter on the current total: atomic on the server); when that fails the mark is
 * taken back. The record is inserted before its digests and deleted after them, so a
 * digest row never outlives the deploy that the expiry job finds.
 */
export function mongoDeploys(deploys: Collection<DeployDocument>, deployBlobs: Collection<DeployBlobDocument>): DeployMethods {
  return {
    async createDeploy(deploy, blobs) {
      const { id, ...rest } = deploy;
      await deploys.insertOne({ _id: id, ...rest });
      try {
        for (let i = 0; i < blobs.length; i += 5_000) {
          await deployBlobs.insertMany(
            blobs.slice(i, i + 5_000).map((b) => ({ _id: blobId(id, b.hash), d: id, h: b.hash, required: b.required, size: b.size ?? null })),
            { ordered: false },
          );
        }
      } catch (err) {
        await deployBlobs.deleteMany({ d: id }).catch(() => undefined);
        await deploys.deleteOne({ _id: id }).catch(() => undefined);
        throw err;
      }
    },

    async getDeploy(id) {
      const found = await deploys.findOne({ _id: id });
      return found ? toDeploy(found) : undefined;
    },

    async getDeployBlob(id, hash) {
      const found = await deployBlobs.findOne({ _id: blobId(id, hash) });
      return found ? toBlob(found) : undefined;
    },

    async listDeployBlobs(id) {
      return (await deployBlobs.find({ d: id }).sort({ h: 1 }).toArray()).map(toBlob);
    },

    async recordDeployUpload(id, hash, size, maxBytes) {
      const open = await deploys.findOne({ _id: id }, { projection: { status: 1 } });
      if (open?.status !== 'open') return 'closed';
      const marked = await deployBlobs.updateOne({ _id: blobId(id, hash), required: true, size: null }, { $set: { size } });
      if (marked.modifiedCount === 0) return 'already';
      const counted = await deploys.updateOne({ _id: id, status: 'open', uploadedBytes: { $lte: maxBytes - size } }, { $inc: { uploadedBytes: size } });
      if (counted.modifiedCount === 1) return 'recorded';
      await deployBlobs.updateOne({ _id: blobId(id, hash), size }, { $set: { size: null } });
      const now = await deploys.findOne({ _id: id }, { projection: { status: 1 } });
      return now?.status === 'open' ? 'over_limit' : 'closed';
    },

    async setDeployStatus(id, from, to, revision) {
      const done = await deploys.updateOne({ _id: id, status: from }, { $set: { status: to, ...(revision === undefined ? {} : { revision }) } });
      return done.modifiedCount === 1;
    },

    async listExpiredDeploys(by, limit) {
      return (await deploys.find({ expiresAt: { $lte: by } }).sort({ expiresAt: 1, _id: 1 }).limit(limit).toArray()).map(toDeploy);
    },

    async deleteDeploy(id) {
      await deployBlobs.deleteMany({ d: id });
      await deploys.deleteOne({ _id: id });
    },
  };
}
