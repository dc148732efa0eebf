import { openS3BlobStore } from '../../host/blobs/s3.ts';
import { startS3Server } from '../support/s3-server.ts';
import { deployExpirySuite, deploySuite, type DeployFixture } from './deploys.suite.ts';

// Spec §10 with the S3 file store: the service runs against s3rver (behind the checking proxy).
const s3 = async (): Promise<DeployFixture> => {
  const server = await startS3Server();
  return {
    env: { SITES_S3_ENDPOINT: server.endpoint, SITES_S3_BUCKET: server.bucket, SITES_S3_ACCESS_KEY: server.accessKey, SITES_S3_SECRET_KEY: server.secretKey },
    probe: async () => {
      const store = await openS3BlobStore(server);
      return { has: (hash) => store.has(hash), close: () => store.close() };
    },
    dispose: () => server.stop(),
  };
};

deploySuite('S3', s3);
deployExpirySuite('S3', s3);
