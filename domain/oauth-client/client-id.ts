/**
 * Two kinds of OAuth client: dynamically registered ones (RFC 7591: `mcpclient_…`, with an
 * `oauthclient-…` stream) and ones identified by a client ID metadata document, whose
 * `client_id` is the URL of that document (draft-ietf-oauth-client-id-metadata-document).
 * The latter have no registration of their own: the authorization endpoint fetches and
 * checks the document each time its cached copy is stale.
 */
export const isMetadataDocumentClientId = (clientId: string): boolean => /^https?:\/\//i.test(clientId);
