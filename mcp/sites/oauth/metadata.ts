import type Router from '@koa/router';
import type { ApiContext } from '../../../api/context.ts';
import { urls } from '../http.ts';
import { SCOPES_SUPPORTED } from './authorize-request.ts';

/**
 * Discovery documents: RFC 9728 protected-resource metadata (at the root and at the
 * `/mcp`-suffixed path RFC 9728 §3.1 derives from the resource URL) and RFC 8414
 * authorization-server metadata. The service is its own authorization server; the
 * issuer is the apex origin.
 */
export function mountMetadata(router: Router, api: ApiContext): void {
  const resourceMetadata = () => {
    const u = urls(api);
    return {
      resource: u.resource,
      authorization_servers: [u.origin],
      bearer_methods_supported: ['header'],
      resource_name: `Sites publishing (${api.config.baseDomain})`,
    };
  };
  const serverMetadata = () => {
    const u = urls(api);
    return {
      issuer: u.origin,
      authorization_endpoint: u.authorize,
      token_endpoint: u.token,
      registration_endpoint: u.register,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      // Only here, not in the resource metadata: hosts request every scope listed there, and a
      // scope only prefills the consent form, which should open with publish alone.
      scopes_supported: SCOPES_SUPPORTED,
      authorization_response_iss_parameter_supported: true,
      // A client_id may be the https URL of the client's metadata document (client-metadata.ts).
      client_id_metadata_document_supported: true,
    };
  };
  const send = (doc: () => object) => (ctx: import('koa').Context) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = doc();
  };
  router.get('/.well-known/oauth-protected-resource', send(resourceMetadata));
  router.get('/.well-known/oauth-protected-resource/mcp', send(resourceMetadata));
  router.get('/.well-known/oauth-authorization-server', send(serverMetadata));
}
