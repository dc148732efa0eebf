import { connectionDecider } from '../domain/connection/decide.ts';
import { keyDecider } from '../domain/key/decide.ts';
import { oauthClientDecider } from '../domain/oauth-client/decide.ts';
import type { SiteAddress } from '../domain/paths.ts';
import { siteDecider } from '../domain/site/decide.ts';
import { connectionStream, keyStream, oauthClientStream, siteStream } from '../domain/streams.ts';
import { aggregate } from './command.ts';

/**
 * The four aggregates, each its decider bound once to its stream. A use case binds one to
 * the ports and hands it a command: `siteCommands(deps).handle(address, actor, command)`.
 */
export const siteCommands = aggregate({ stream: (address: SiteAddress) => siteStream(address), decider: siteDecider });
export const keyCommands = aggregate({ stream: keyStream, decider: keyDecider });
export const connectionCommands = aggregate({ stream: connectionStream, decider: connectionDecider });
export const oauthClientCommands = aggregate({ stream: oauthClientStream, decider: oauthClientDecider });
