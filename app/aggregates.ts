import { connectionDecider } from '../domain/connection/decide.ts';
import { keyDecider } from '../domain/key/decide.ts';
import { oauthClientDecider } from '../domain/oauth-client/decide.ts';
import type { SiteAddress } from '../domain/paths.ts';
import { siteDecider } from '../domain/site/decide.ts';
import { connectionStream, keyStream, oauthClientStream, siteStream, webhookStream } from '../domain/streams.ts';
import { webhookDecider } from '../domain/webhook/decide.ts';
import { aggregate } from './command.ts';

/**
 * The aggregates (site, key, connection, OAuth client, webhook), each its decider bound once
 * to its stream. A use case binds one to the ports and hands it a command (or how to prepare
 * it from the state): `siteCommands(deps).handle(address, actor, command)`.
 */
export const siteCommands = aggregate({ stream: (address: SiteAddress) => siteStream(address), decider: siteDecider });
export const keyCommands = aggregate({ stream: keyStream, decider: keyDecider });
export const connectionCommands = aggregate({ stream: connectionStream, decider: connectionDecider });
export const oauthClientCommands = aggregate({ stream: oauthClientStream, decider: oauthClientDecider });
export const webhookCommands = aggregate({ stream: webhookStream, decider: webhookDecider });
