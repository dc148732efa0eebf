import { ServiceStorage } from '../schemas/audit.ts';
import { ConnectionIdParam, ConnectionsQuery, ConnectionsResponse } from '../schemas/connection.ts';
import { CreatedAPIKey, CreateKeyBody, KeysQuery, KeysResponse } from '../schemas/key.ts';
import { KeyIdParam } from '../schemas/params.ts';
import { empty, json, jsonBody, type Operation } from './operation.ts';

/** Admin only: API keys, MCP connections and the storage of the whole service. */
export const admin: Operation[] = [
  {
    id: 'listKeys',
    method: 'get',
    path: '/api/keys',
    tag: 'keys',
    auth: 'admin',
    summary: 'List API keys (never their tokens)',
    query: KeysQuery,
    ok: { status: 200, reply: json(KeysResponse, 'the keys that are not revoked (with revoked=true, revoked ones too)') },
    errors: [400, 401, 403],
  },
  {
    id: 'createKey',
    method: 'post',
    path: '/api/keys',
    tag: 'keys',
    auth: 'admin',
    summary: 'Create an API key',
    description: 'The token is in this response and nowhere else. A grant target must be canonical (no empty label, trailing slash, upper case, more than 3 labels).',
    body: jsonBody(CreateKeyBody, 'the key to create'),
    ok: { status: 201, reply: json(CreatedAPIKey, 'the key, with its token') },
    errors: [400, 401, 403, 409, 413, 415],
  },
  {
    id: 'revokeKey',
    method: 'delete',
    path: '/api/keys/{id}',
    tag: 'keys',
    auth: 'admin',
    summary: 'Revoke an API key',
    description: 'The key stops working before this returns.',
    params: { id: KeyIdParam },
    ok: { status: 204, reply: empty('revoked') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'listConnections',
    method: 'get',
    path: '/api/mcp/connections',
    tag: 'connections',
    auth: 'admin',
    summary: 'List MCP connections',
    query: ConnectionsQuery,
    ok: { status: 200, reply: json(ConnectionsResponse, 'active connections (with revoked=true, revoked ones too)') },
    errors: [400, 401, 403],
  },
  {
    id: 'revokeConnection',
    method: 'delete',
    path: '/api/mcp/connections/{id}',
    tag: 'connections',
    auth: 'admin',
    summary: 'Revoke an MCP connection',
    description: 'Its tokens stop working before this returns.',
    params: { id: ConnectionIdParam },
    ok: { status: 204, reply: empty('revoked') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'getStorage',
    method: 'get',
    path: '/api/storage',
    tag: 'revisions',
    auth: 'admin',
    summary: 'What the retained revisions cost',
    description: 'Every retained revision of every site, their summed size against what the shared store holds for them (each distinct content once).',
    ok: { status: 200, reply: json(ServiceStorage, 'storage of the whole service') },
    errors: [401, 403],
  },
];
