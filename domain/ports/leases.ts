/**
 * Coordination between service instances: named, expiring leases (who projects, who runs
 * the background jobs, who replays). Stored where every instance sees them (the read model's
 * database), never projected.
 */
export interface Leases {
  /** Takes or renews the named lease for `ttlMs`; false when another holder has it. */
  tryLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Who holds the named lease as stored (its time may be up); undefined when nobody does. */
  leaseHolder(name: string): Promise<string | undefined>;
  /**
   * Takes the named lease for `ttlMs` from `gone`, a holder the caller knows has stopped
   * (a SIGKILLed process cannot release it), before its time is up. Atomic: false when
   * `gone` no longer holds it (it was released, renewed by nobody else, or taken meanwhile).
   */
  takeOverLease(name: string, gone: string, holder: string, ttlMs: number): Promise<boolean>;
}
