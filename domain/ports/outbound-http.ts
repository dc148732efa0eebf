/** Why an outbound request was not sent, or not answered in full. */
export type OutboundRefusal = {
  /**
   * `url`: not an absolute URL, or one with user info; `scheme`: not https (http only with
   * the private switch); `address`: the host is, or resolves to, a non-public address;
   * `dns`: the name does not resolve; `busy`: too many name lookups are in flight (refused
   * at once, not queued: try again later); `timeout`; `too_large`: the answer is over the
   * bound; `network`: connection, TLS or protocol failure.
   */
  readonly reason: 'url' | 'scheme' | 'address' | 'dns' | 'busy' | 'timeout' | 'too_large' | 'network';
  /** One sentence for logs, delivery records and error pages. */
  readonly message: string;
};

export type OutboundRequest = {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  /** Lower than the client's own bound only: a request can shrink the limits, never widen them. */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  /**
   * Called once, when the request has been written to its connection and its answer is
   * awaited; never for one refused before it was sent. A caller that sends one request after
   * another does its own work then, while the other side answers.
   */
  readonly onSent?: () => void;
};

/** An answer as received: redirects are not followed, so a 3xx comes back as it is. */
export type OutboundResponse = {
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
};

/**
 * The one way the service makes HTTP requests of its own (webhook deliveries, OAuth client
 * metadata documents). An adapter (host/outbound/) refuses destinations on the service's
 * own network after DNS resolution and connects to the address it checked, follows no
 * redirects, and bounds time and size. Each instance has one policy, set by the
 * composition root (which switch allows private addresses): callers cannot widen it.
 */
export interface OutboundHttp {
  /** Checks a URL's scheme and where its host resolves now, sending nothing (e.g. when a webhook is created). */
  check(url: string): Promise<OutboundRefusal | undefined>;
  request(req: OutboundRequest): Promise<{ ok: true; response: OutboundResponse } | { ok: false; refusal: OutboundRefusal }>;
}
