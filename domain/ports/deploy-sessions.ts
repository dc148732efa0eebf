import type { Deploy, DeployBlob, DeployStatus, UploadRecord } from '../deploy/deploy.ts';

/**
 * Incremental deploys in progress (spec §10): short-lived, mutable state shared by every
 * service instance, not history (the site's events record the publish). A deploy's record
 * and its distinct digests are written together; while the record exists its digests and
 * manifest count as referenced (`BlobIndex.referencedBlobs`), so garbage collection keeps
 * what it uploaded. A read-model `reset()` keeps them.
 */
export interface DeploySessions {
  createDeploy(deploy: Deploy, blobs: readonly DeployBlob[]): Promise<void>;
  getDeploy(id: string): Promise<Deploy | undefined>;
  /** One digest of a deploy's manifest, or undefined when the manifest does not list it. */
  getDeployBlob(id: string, hash: string): Promise<DeployBlob | undefined>;
  /** Every distinct digest of a deploy's manifest. */
  listDeployBlobs(id: string): Promise<DeployBlob[]>;
  /**
   * Records that a required digest was uploaded with `size` bytes, adding them to the
   * deploy's `uploadedBytes` only if the total stays at most `maxBytes`: one atomic
   * conditional increment, so concurrent uploads (on any instance) cannot pass the limit
   * together. A digest is counted once: `already` when it was counted before or is not
   * required; `over_limit` changes nothing; `closed` when the deploy is gone or not open.
   */
  recordDeployUpload(id: string, hash: string, size: number, maxBytes: number): Promise<UploadRecord>;
  /** Moves a deploy from `from` to `to` (compare-and-set); false when it was not at `from`. */
  setDeployStatus(id: string, from: DeployStatus, to: DeployStatus, revision?: string): Promise<boolean>;
  /** Deploys whose `expiresAt` is at or before `by` (ISO-8601 UTC), earliest first, at most `limit`. */
  listExpiredDeploys(by: string, limit: number): Promise<Deploy[]>;
  /** Deletes a deploy and its digests; its blobs are then only as referenced as anything else. */
  deleteDeploy(id: string): Promise<void>;
}
