/**
 * One line of the operator's log (README, "Operations"): a write, whatever its outcome, or
 * a request refused with 401/403. Never a header, query string or body: nothing here can
 * carry a credential.
 */
export type AuditEntry = {
  /** `write`: a state-changing request or MCP tool call; `denied`: any other request answered 401/403. */
  readonly kind: 'write' | 'denied';
  /** `key:3`, `user:alice`, `connection:<id>`, or `anonymous` (no valid credential). */
  readonly actor: string;
  /** The key's name, the MCP client's name. */
  readonly actor_name?: string;
  /** `publish`, `rollback`, `key.revoke`, `mcp.publish_site`… (or `METHOD /path` for a route without a name). */
  readonly action: string;
  readonly site?: string;
  readonly revision?: string;
  /** A publish that changed nothing and recorded nothing (spec §4). */
  readonly unchanged?: true;
  /** What a non-site write acted on: `key:5`, `connection:<id>`, `deploy:<id>`, `domain:<name>`. */
  readonly target?: string;
  readonly outcome: 'ok' | 'refused' | 'failed';
  /** The HTTP status (for an MCP tool: the status the same refusal gets over HTTP). */
  readonly status: number;
  /** The error's machine code (`forbidden`, `invalid_client`…), on a refusal or failure. */
  readonly code?: string;
  /** The error's sentence, on a refusal or failure. */
  readonly reason?: string;
  readonly method: string;
  /** The path asked for, without the query string. */
  readonly route: string;
  /** The client's address: the TCP peer, or the right-most X-Forwarded-For from a trusted proxy. */
  readonly client: string;
  readonly ms: number;
};
