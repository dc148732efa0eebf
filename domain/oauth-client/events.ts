/** Events of an `oauthclient-…` stream: one dynamically registered OAuth client (RFC 7591). */
export type OAuthClientEvent =
  | {
      readonly type: 'ClientRegistered';
      readonly data: {
        readonly clientId: string;
        readonly name: string;
        readonly redirectUris: readonly string[];
        readonly registeredAt: string;
        /** RFC 7591 `client_uri`, shown on the consent screen. */
        readonly clientUri?: string;
        /**
         * When the registration ends unless a consent was granted to it by then (24 h after
         * registering). Absent on registrations recorded before expiry existed: kept for good.
         */
        readonly unusedExpiresAt?: string;
      };
    }
  /**
   * Written once, before the client's first connection is granted: from then on the
   * registration is in use and never expires. Written first so that "a connection was
   * granted to this client" always implies this event (the write side knows it from the
   * client's own stream, without asking the read model).
   */
  | { readonly type: 'ClientUsed'; readonly data: { readonly clientId: string; readonly connectionId: string } }
  /** A registration never used for a consent, past its `unusedExpiresAt`. Ends the client. */
  | { readonly type: 'ClientRegistrationExpired'; readonly data: { readonly clientId: string; readonly registeredAt: string } };
