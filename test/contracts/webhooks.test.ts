import { openSqliteWebhookDeliveries } from '../../host/webhooks/sqlite.ts';
import { runOnSqliteAndMongo } from './embedded-and-mongo.ts';
import { webhooksContract } from './webhooks.contract.ts';

runOnSqliteAndMongo({
  port: 'WebhookDeliveries',
  name: 'webhooks',
  contract: webhooksContract,
  sqlite: openSqliteWebhookDeliveries,
  mongo: async () => (await import('../../host/webhooks/mongo.ts')).openMongoWebhookDeliveries,
});
