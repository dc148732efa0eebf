/**
 * Coordination between service instances: named, expiring leases (who projects, who runs
 * the background jobs, who replays). Stored where every instance sees them (the read model's
 * database), never projected.
 */
export interface Leases {
  /** Takes or renews the named lease for `ttlMs`; false when another holder has it. */
  tryLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
}
