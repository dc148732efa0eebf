/** Phase intensity: canonical zones and labels against upstream `intensityType` and zone bounds. */

/** The five intensity labels and the heart-rate zones they stand for. */
export const LABEL_ZONES = {
  easy: [1, 2],
  aerobic: [2, 2],
  tempo: [3, 3],
  threshold: [4, 4],
  vo2max: [5, 5],
} as const;

/** An intensity label of the canonical phase model. */
export type IntensityLabel = keyof typeof LABEL_ZONES;

/** Canonical intensity; when several members are set, precedence decides (hr > power > speed > label). */
export type Intensity = { hr_zone?: number; power_zone?: number; speed_zone?: number; label?: IntensityLabel };

/** Upstream intensity fields of a phase leaf. */
export type WireIntensity = { intensityType: string; lowerZone: number | null; upperZone: number | null };

/** Canonical intensity → upstream `intensityType` and zones, applying the precedence rule. */
export function intensityToWire(i: Intensity | undefined): WireIntensity {
  if (i?.hr_zone !== undefined) return { intensityType: 'HEART_RATE_ZONES', lowerZone: i.hr_zone, upperZone: i.hr_zone };
  if (i?.power_zone !== undefined) return { intensityType: 'POWER_ZONES', lowerZone: i.power_zone, upperZone: i.power_zone };
  if (i?.speed_zone !== undefined) return { intensityType: 'SPEED_ZONES', lowerZone: i.speed_zone, upperZone: i.speed_zone };
  if (i?.label !== undefined) {
    const [lo, hi] = LABEL_ZONES[i.label];
    return { intensityType: 'HEART_RATE_ZONES', lowerZone: lo, upperZone: hi };
  }
  return { intensityType: 'NONE', lowerZone: null, upperZone: null };
}
