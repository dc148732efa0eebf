import { operatorIdentity } from '../../domain/auth.ts';
import { loadConfig, type Config } from '../config.ts';
import { noArguments, only, parseArgs, UsageError } from './args.ts';
import { CliError, failuresAsLogLines, installLastResort, reportFailure, systemReason } from './failure.ts';
import { plural } from './format.ts';
import { commandHelp, USAGE, wantsHelp } from './help.ts';

// Each command loads what it needs when it runs: `sites publish` (the publishing client) starts
// in a fraction of the time the service's modules (koa, SQLite, the domain) take to load.
const services = () => import('../service.ts');
const jobs = async () => {
  const [{ startQuarantineJob }, { startOAuthClientExpiryJob }, { startDeployExpiryJob }, { startPreviewExpiryJob }] = await Promise.all([
    services(),
    import('../oauth-client-job.ts'),
    import('../deploy-job.ts'),
    import('../preview-job.ts'),
  ]);
  return { startQuarantineJob, startOAuthClientExpiryJob, startDeployExpiryJob, startPreviewExpiryJob };
};

/** Runs the CLI; returns the exit status (0 ok, 1 failed operation, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // The long-running commands write a log: with SITES_LOG_FORMAT=json even a failure to start is a JSON line.
  if ((command === 'serve' || command === 'project') && (process.env.SITES_LOG_FORMAT || '').toLowerCase() === 'json') failuresAsLogLines();
  installLastResort();
  try {
    // `sites keys --help`, `sites keys create --help`: the command's help, whatever else the line holds.
    const help = command !== undefined && command !== 'publish' && command !== 'previews' && wantsHelp(rest) ? commandHelp(command) : undefined;
    if (help) {
      console.log(help);
      return 0;
    }
    const config = () => loadConfig();
    const openShort = async () => (await services()).createService(config(), { project: 'catch-up' });
    switch (command) {
      case 'serve':
        noOptions(rest);
        return await serve();
      case 'keys':
        return await (await import('./keys.ts')).keysCli(rest, openShort);
      case 'publish':
        return await (await import('./publish.ts')).publishCli(rest);
      case 'previews':
        return await (await import('./publish.ts')).previewsCli(rest);
      case 'mcp': {
        const mcp = await import('./mcp.ts');
        const service = await openShort();
        try {
          return await mcp.runMcpCli(rest, service);
        } finally {
          await service.close();
        }
      }
      case 'replay':
        noOptions(rest);
        return await replay(config());
      case 'project':
        noOptions(rest);
        return await projectOnly(config());
      case 'gc': {
        noOptions(rest);
        const service = await openShort();
        try {
          await service.projector.catchUp();
          const { collectAll } = await import('../../app/jobs/gc.ts');
          const { scanned, deleted } = await collectAll(service.deps, operatorIdentity(process.env.USER ?? 'local'));
          console.log(`scanned ${plural(scanned, 'stored file')}, deleted ${deleted} unreferenced`);
        } finally {
          await service.close();
        }
        return 0;
      }
      case undefined:
        console.log(USAGE);
        return 2;
      case 'help':
      case '--help': {
        // `sites help keys` is `sites keys --help`.
        const topic = rest[0];
        if (topic === 'publish') return await (await import('./publish.ts')).publishCli(['--help']);
        if (topic === 'previews') return await (await import('./publish.ts')).previewsCli(['--help']);
        console.log((topic !== undefined ? commandHelp(topic) : undefined) ?? USAGE);
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)} (sites help lists them)`);
    }
  } catch (err) {
    return reportFailure(err);
  }
}

function noOptions(argv: string[]): void {
  const parsed = parseArgs(argv);
  only(parsed, []);
  noArguments(parsed);
}

async function serve(): Promise<number> {
  const config = loadConfig();
  let port = config.listen.port;
  const { createService, startHttp } = await services();
  const { startQuarantineJob, startOAuthClientExpiryJob, startDeployExpiryJob, startPreviewExpiryJob } = await jobs();
  const { serveBanner } = await import('./banner.ts');
  const service = await createService(config, { project: 'run', port: () => port });
  logProcessWarnings(service.log, config);
  const server = await startHttp(service).catch(async (err: unknown) => {
    // The projector is already running: without closing it the process would stay up, silent.
    await service.close();
    throw listenFailure(err, config);
  });
  const address = server.address();
  if (address && typeof address === 'object') port = address.port;
  // Check often enough that a short TTL (tests, demos) is honoured within a quarter of it.
  const stopJob = startQuarantineJob(service, Math.min(60_000, Math.max(500, config.deletedSiteTtlMs / 4)));
  startOAuthClientExpiryJob(service);
  const stopDeploys = startDeployExpiryJob(service);
  const stopPreviews = startPreviewExpiryJob(service);
  const url = service.api.apexOrigin();
  const fields = config.logFormat === 'json' ? { listen: `${config.listen.host}:${port}`, portal: `${url}/`, stack: service.stack.describe } : undefined;
  service.log.info(serveBanner(config, { host: config.listen.host, port }, url), fields);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  stopJob();
  stopDeploys();
  stopPreviews();
  // Open event streams (MCP SSE) would keep close() waiting forever: drop connections first.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
  await service.close();
  return 0;
}

async function replay(config: ReturnType<typeof loadConfig>): Promise<number> {
  const service = await (await services()).createService(config, { project: 'catch-up' });
  try {
    const { leaseHolderId, takeLease } = await import('../lease-holder.ts');
    const holder = leaseHolderId('replay');
    // A service killed moments ago still holds the lease on paper: it is not waited out.
    if (!(await takeLease(service.stack.readModel, 'projector', holder, 60_000))) {
      throw new CliError('a running service holds the projector lease; stop it before replaying');
    }
    // Renewed while the log is replayed: a long replay must not let a service that starts
    // meanwhile take the lease and project into a read model that is being rebuilt.
    let renewedAt = Date.now();
    const renew = async () => {
      if (Date.now() - renewedAt < 15_000) return;
      if (!(await service.stack.readModel.tryLease('projector', holder, 60_000))) {
        throw new CliError('another process took the projector lease during the replay; stop every service and replay again');
      }
      renewedAt = Date.now();
    };
    try {
      const started = Date.now();
      await service.stack.readModel.reset();
      const applied = await service.projector.catchUp(renew);
      console.log(`replayed ${plural(applied, 'event')} in ${Date.now() - started} ms`);
    } finally {
      await service.stack.readModel.releaseLease('projector', holder);
    }
  } finally {
    await service.close();
  }
  return 0;
}

async function projectOnly(config: ReturnType<typeof loadConfig>): Promise<number> {
  const { startQuarantineJob, startOAuthClientExpiryJob, startDeployExpiryJob, startPreviewExpiryJob } = await jobs();
  const service = await (await services()).createService(config, { project: 'run' });
  logProcessWarnings(service.log, config);
  service.log.info('projector running', { stack: service.stack.describe });
  const stopJob = startQuarantineJob(service);
  startOAuthClientExpiryJob(service);
  const stopDeploys = startDeployExpiryJob(service);
  const stopPreviews = startPreviewExpiryJob(service);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  stopJob();
  stopDeploys();
  stopPreviews();
  await service.close();
  return 0;
}

/** Node's own warnings (deprecations and the like) go through the service log, as JSON lines when that is the format. */
function logProcessWarnings(log: { warn(msg: string, fields?: Record<string, unknown>): void }, config: Config): void {
  if (config.logFormat !== 'json') return;
  process.removeAllListeners('warning');
  process.on('warning', (warning) => log.warn(warning.message, { warning: warning.name, ...((warning as { code?: string }).code ? { code: (warning as { code?: string }).code } : {}) }));
}

/** Why the service could not listen, naming the variable that fixes it. */
function listenFailure(err: unknown, config: Config): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${config.listen.port}`;
  if (code === 'EADDRINUSE') return new CliError(`cannot listen on ${where}: the port is in use (another sites serve?); stop it or set SITES_LISTEN_ADDR`);
  if (code === 'EACCES') return new CliError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); set SITES_LISTEN_ADDR`);
  if (systemReason(err)) return new CliError(`cannot listen on ${where}: ${systemReason(err)}; check SITES_LISTEN_ADDR`);
  return err;
}
