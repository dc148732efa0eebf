import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { blobPath } from '../../host/blobs/folder.ts';
import { deployExpirySuite, deploySuite, type DeployFixture } from './deploys.suite.ts';

// Spec §10 with the embedded folder store (SITES_DATA_DIR/blobs).
const folder = async (): Promise<DeployFixture> => ({
  env: {},
  probe: async (dataDir) => ({ has: async (hash) => existsSync(blobPath(join(dataDir, 'blobs'), hash)), close: async () => undefined }),
  dispose: async () => undefined,
});

deploySuite('folder', folder);
deployExpirySuite('folder', folder);
