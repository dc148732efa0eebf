import type Database from 'better-sqlite3';
import type { Deploy, DeployBlob } from '../../domain/deploy/deploy.ts';
import type { ReadModel } from '../../projections/read-model.ts';

type DeployRow = { id: string; status: Deploy['status']; manifest: string; expires_at: string; uploaded_bytes: number; doc: string };
type BlobRow = { hash: string; required: number; size: number | null };

/** The columns a query filters on; everything else of the deploy is the JSON `doc`. */
type DeployBody = Omit<Deploy, 'id' | 'status' | 'manifest' | 'expiresAt' | 'uploadedBytes'>;

const toDeploy = (row: DeployRow): Deploy => ({
  ...(JSON.parse(row.doc) as DeployBody),
  id: row.id,
  status: row.status,
  manifest: row.manifest,
  expiresAt: row.expires_at,
  uploadedBytes: row.uploaded_bytes,
});
const toBlob = (row: BlobRow): DeployBlob => ({ hash: row.hash, required: row.required === 1, ...(row.size === null ? {} : { size: row.size }) });

type DeployMethods = Pick<
  ReadModel,
  'createDeploy' | 'getDeploy' | 'getDeployBlob' | 'listDeployBlobs' | 'recordDeployUpload' | 'setDeployStatus' | 'listExpiredDeploys' | 'deleteDeploy'
>;

/**
 * Incremental deploys in the embedded read model (tables `deploys` and `deploy_blobs`).
 * Writes that must be atomic across processes sharing the file run as IMMEDIATE
 * transactions: the record with its digests, and an upload with its byte count.
 */
export function sqliteDeploys(db: Database.Database): DeployMethods {
  const s = {
    insert: db.prepare(`INSERT INTO deploys (id, status, manifest, expires_at, uploaded_bytes, doc) VALUES (@id, @status, @manifest, @expiresAt, @uploadedBytes, @doc)`),
    insertBlob: db.prepare(`INSERT INTO deploy_blobs (deploy, hash, required, size) VALUES (?, ?, ?, ?)`),
    get: db.prepare<[string], DeployRow>(`SELECT id, status, manifest, expires_at, uploaded_bytes, doc FROM deploys WHERE id = ?`),
    blob: db.prepare<[string, string], BlobRow>(`SELECT hash, required, size FROM deploy_blobs WHERE deploy = ? AND hash = ?`),
    blobs: db.prepare<[string], BlobRow>(`SELECT hash, required, size FROM deploy_blobs WHERE deploy = ? ORDER BY hash`),
    markUploaded: db.prepare<[number, string, string]>(`UPDATE deploy_blobs SET size = ? WHERE deploy = ? AND hash = ? AND required = 1 AND size IS NULL`),
    addBytes: db.prepare<{ id: string; size: number; max: number }>(
      `UPDATE deploys SET uploaded_bytes = uploaded_bytes + @size WHERE id = @id AND status = 'open' AND uploaded_bytes + @size <= @max`,
    ),
    status: db.prepare<[string], { status: string }>(`SELECT status FROM deploys WHERE id = ?`),
    setStatus: db.prepare<{ id: string; from: string; to: string; revision: string | null }>(
      `UPDATE deploys SET status = @to, doc = CASE WHEN @revision IS NULL THEN doc ELSE json_set(doc, '$.revision', @revision) END
        WHERE id = @id AND status = @from`,
    ),
    expired: db.prepare<[string, number], DeployRow>(
      `SELECT id, status, manifest, expires_at, uploaded_bytes, doc FROM deploys WHERE expires_at <= ? ORDER BY expires_at ASC, id ASC LIMIT ?`,
    ),
    delete: db.prepare(`DELETE FROM deploys WHERE id = ?`),
    deleteBlobs: db.prepare(`DELETE FROM deploy_blobs WHERE deploy = ?`),
  };

  const createTx = db.transaction((deploy: Deploy, blobs: readonly DeployBlob[]) => {
    const { id, status, manifest, expiresAt, uploadedBytes, ...body } = deploy;
    s.insert.run({ id, status, manifest, expiresAt, uploadedBytes, doc: JSON.stringify(body) });
    for (const b of blobs) s.insertBlob.run(id, b.hash, b.required ? 1 : 0, b.size ?? null);
  });
  const uploadTx = db.transaction((id: string, hash: string, size: number, max: number) => {
    const status = s.status.get(id)?.status;
    if (status !== 'open') return 'closed' as const;
    if (s.markUploaded.run(size, id, hash).changes === 0) return 'already' as const;
    if (s.addBytes.run({ id, size, max }).changes === 0) throw new OverLimit();
    return 'recorded' as const;
  });
  const deleteTx = db.transaction((id: string) => {
    s.deleteBlobs.run(id);
    s.delete.run(id);
  });

  return {
    async createDeploy(deploy, blobs) {
      createTx.immediate(deploy, blobs);
    },
    async getDeploy(id) {
      const row = s.get.get(id);
      return row && toDeploy(row);
    },
    async getDeployBlob(id, hash) {
      const row = s.blob.get(id, hash);
      return row && toBlob(row);
    },
    async listDeployBlobs(id) {
      return s.blobs.all(id).map(toBlob);
    },
    async recordDeployUpload(id, hash, size, maxBytes) {
      try {
        return uploadTx.immediate(id, hash, size, maxBytes);
      } catch (err) {
        // Thrown inside the transaction so that marking the digest is rolled back with it.
        if (err instanceof OverLimit) return 'over_limit';
        throw err;
      }
    },
    async setDeployStatus(id, from, to, revision) {
      return s.setStatus.run({ id, from, to, revision: revision ?? null }).changes > 0;
    },
    async listExpiredDeploys(by, limit) {
      return s.expired.all(by, limit).map(toDeploy);
    },
    async deleteDeploy(id) {
      deleteTx.immediate(id);
    },
  };
}

class OverLimit extends Error {}
