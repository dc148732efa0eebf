import { afterAll, beforeAll, describe } from 'vitest';
import type { HttpEndpoint } from '../../mcp/diary/http.ts';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';
import { httpClient, httpServer, type Era, type TestClient } from './helpers.ts';
import { toolSuite } from './tools.suite.ts';

const TIMEOUT = 300;
let sim: DiarySim;
let endpoint: HttpEndpoint;
beforeAll(async () => {
  sim = await startSimulator();
  endpoint = await httpServer(sim, TIMEOUT);
});
afterAll(async () => {
  await endpoint.close();
  await sim.close();
});

for (const era of ['modern', 'legacy'] as Era[]) {
  describe(`Streamable HTTP, ${era} client`, () => {
    let client: TestClient;
    beforeAll(async () => {
      client = await httpClient(endpoint.url, era, 'accept');
    });
    afterAll(() => client.close());
    toolSuite({ sim: () => sim, client: () => client, timeoutMs: TIMEOUT });
  });
}
