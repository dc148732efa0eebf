/**
 * `npm run diary:simulator`: runs the simulated diary on fixed loopback ports
 * and prints the env vars that point the diary tool server at it.
 */
import { addDays, utcDate } from '../../../mcp/diary/convert.ts';
import { startSimulator } from './server.ts';

const flowPort = Number(process.env.DIARY_SIM_FLOW_PORT ?? 41001);
const authPort = Number(process.env.DIARY_SIM_AUTH_PORT ?? 41002);
const sim = await startSimulator({ flowPort, authPort });
// One recorded run a few days ago so the session tools have something to show.
sim.seedDeviceSession(addDays(utcDate(new Date()), -3));

const env = sim.env();
process.stdout.write(
  [
    `Simulated training diary: flow ${sim.flowUrl}, sign-in ${sim.authUrl}`,
    'Point the diary tool server at it with:',
    '',
    ...Object.entries(env).map(([k, v]) => `  export ${k}=${v}`),
    '',
    'then run `npm run diary` (stdio) or `npm run diary -- --http 127.0.0.1:8090`.',
    'State is in memory and resets when this process stops (Ctrl-C).',
    '',
  ].join('\n'),
);

const stop = (): void => {
  void sim.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
