import type { Grant } from '../grants.ts';

/** Events of a `key-…` stream. */
export type KeyEvent =
  | {
      readonly type: 'KeyIssued';
      readonly data: {
        readonly id: number;
        readonly name: string;
        readonly admin: boolean;
        readonly grants: readonly Grant[];
        /** Hex SHA-256 of the token; the token itself is never stored. */
        readonly tokenHash: string;
        readonly expiresAt?: string;
      };
    }
  | { readonly type: 'KeyRevoked'; readonly data: { readonly id: number } }
  /**
   * Written at most once per key per coalescing window, never per request, to the key's usage
   * stream (`keyUsageStream`); logs from before that stream existed hold it in `key-<id>`.
   */
  | { readonly type: 'KeyUsed'; readonly data: { readonly id: number; readonly at: string } };
