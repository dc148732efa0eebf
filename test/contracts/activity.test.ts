import { openSqliteActivityStore } from '../../host/activity/sqlite.ts';
import { activityContract } from './activity.contract.ts';
import { runOnSqliteAndMongo } from './embedded-and-mongo.ts';

runOnSqliteAndMongo({
  port: 'ActivityStore',
  name: 'activity',
  contract: activityContract,
  sqlite: openSqliteActivityStore,
  mongo: async () => (await import('../../host/activity/mongo.ts')).openMongoActivityStore,
});
