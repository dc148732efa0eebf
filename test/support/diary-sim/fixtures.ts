/**
 * Canned data of the simulated diary: the account, the sport catalogue with
 * localised names, and one "device" session whose analysis bodies carry zones,
 * samples and target reps (what a watch upload looks like).
 */

/** The demo account the simulator accepts. */
export const DEMO_ACCOUNT = {
  email: 'rider@example.org',
  password: 'demo-password',
  userId: 50000001,
  firstName: 'Sam',
  lastName: 'Lee',
  country: 'SE',
  language: 'en' as 'en' | 'fr',
  /** Account time zone, minutes east of UTC (`+01:00`). */
  offsetMinutes: 60,
};

/** Sport id → catalogue constant and localised names. */
export const SPORTS: Record<number, { constant: string; en: string; fr: string }> = {
  1: { constant: 'RUNNING', en: 'Running', fr: 'Course à pied' },
  2: { constant: 'CYCLING', en: 'Cycling', fr: 'Cyclisme' },
  11: { constant: 'HIKING', en: 'Hiking', fr: 'Randonnée' },
  15: { constant: 'STRENGTH_TRAINING', en: 'Strength training', fr: 'Musculation' },
  23: { constant: 'SWIMMING', en: 'Swimming', fr: 'Natation' },
  57: { constant: 'FUNCTIONAL_TRAINING', en: 'Functional training', fr: 'Entraînement fonctionnel' },
  68: { constant: 'TRIATHLON', en: 'Triathlon', fr: 'Triathlon' },
  103: { constant: 'POOL_SWIMMING', en: 'Pool swimming', fr: 'Natation en piscine' },
};

/** Ids that belong to another account: reads answer 403. */
export const FOREIGN_TARGET_ID = 1999999999;
export const FOREIGN_SESSION_ID = 6999999999;

/** The device session id of the shipped fixture. */
export const DEVICE_SESSION_ID = 7100000900;
const EX = 7200000900;

/** A recorded session with analysis bodies, as a device upload produces. */
export type DeviceSession = {
  id: number;
  name: string;
  sportId: number;
  start: string;
  durationS: number;
  distance: number;
  kcal: number;
  hrAvg: number;
  hrMax: number;
  ascent: number;
  descent: number;
  summary: Record<string, unknown>;
  details: Record<string, unknown>;
};

/** The hill-repeat run of the details example, placed on `day` (`YYYY-MM-DD`). */
export function deviceSession(day: string, id = DEVICE_SESSION_ID): DeviceSession {
  const start = `${day}T07:30:00`;
  return {
    id,
    name: 'Hill repeats',
    sportId: 1,
    start,
    durationS: 3160,
    distance: 8725.43,
    kcal: 610,
    hrAvg: 151,
    hrMax: 179,
    ascent: 142.66,
    descent: 139.91,
    summary: {
      id, nextTrainingId: -1, previousTrainingId: -1, userId: DEMO_ACCOUNT.userId,
      trainingSessionName: 'Hill repeats', note: null,
      startDate: start, stopTime: `${day}T08:22:40`, duration: 'PT52M40.5S',
      distance: null, kiloCalories: 610, hrAverage: 151, hrMax: 179, trainingLoad: 97, sportId: null,
      exercises: {
        [EX]: {
          id: EX, sport: { id: 1 }, startTime: `${start}.250`, stopTime: `${day}T08:22:40.750`,
          duration: 'PT52M40.5S', distance: 8725.43, calories: 610, sportParent: 'RUNNING',
          trainingStatistic: { HEART_RATE: { max: 179, avg: 151, min: 98 } },
        },
      },
      deviceName: 'Watch', timezoneOffset: 60, hasRRsamples: false, trimmed: false,
    },
    details: {
      id, periodDataUuid: null,
      exercises: {
        [EX]: {
          id: EX, sport: { id: 1 }, startTime: `${start}.250`, stopTime: `${day}T08:22:40.750`,
          duration: 'PT52M40.5S', distance: 8725.43, calories: 610, ascent: 142.66, descent: 139.91,
          runningIndex: 47, recoveryTime: 'PT16H', sportParent: 'RUNNING',
          trainingStatistic: {
            HEART_RATE: { max: 179.0, avg: 151.0, min: 98.0 },
            SPEED: { max: 15.1, avg: 9.9378, min: null },
            POWER: { max: 401.0, avg: 262.0, min: null },
            CADENCE: { max: 97.0, avg: 84.0, min: null },
            ALTITUDE: { max: 88.2, avg: 55.0, min: 31.4 },
          },
        },
      },
      samples: {
        [EX]: {
          HEART_RATE: { samples: { values: [121, 124, 130], interval: 'PT5S' } },
          SPEED: { samples: { values: [9.1, 9.6, 10.2], interval: 'PT5S' } },
          DISTANCE: { samples: { values: [12.6, 25.9, 40.1], interval: 'PT5S' } },
          ALTITUDE: { samples: { values: [41.2, 41.5, 42.0], interval: 'PT5S' } },
          POWER: null, CADENCE: null, STRIDE_LENGTH: null, TEMPERATURE: null,
        },
      },
      zones: {
        [EX]: {
          HEART_RATE: [
            { zoneIndex: 1, lowerLimit: 100.0, higherLimit: 120.0, inZone: 'PT300S', distance: null },
            { zoneIndex: 2, lowerLimit: 120.0, higherLimit: 140.0, inZone: 'PT900S', distance: null },
          ],
          SPEED: [{ zoneIndex: 5, lowerLimit: 12.9, higherLimit: 399.0, inZone: 'PT75S', distance: 281.3 }],
          POWER: [{ zoneIndex: 5, lowerLimit: 410.0, higherLimit: 2000.0, inZone: 'PT12S', distance: null }],
        },
      },
      laps: { [EX]: { automaticLaps: [], manualLaps: [] } },
      exerciseResultTargetData: {
        [EX]: {
          name: 'Hill repeats', type: 'PHASED', targetReached: true,
          exercisePhaseModels: [
            { phaseIndex: 1, name: 'Warm-up', zoneType: 'HEART_RATE_ZONES', lowerZone: 2, upperZone: 2 },
            { phaseIndex: 2, name: 'Hill', zoneType: 'NONE', lowerZone: 0, upperZone: 0 },
          ],
          exercisePhaseRepetitionModels: [
            {
              phaseIndex: 1, phaseRepetitionIndex: 1, repetitionIndex: 0, splitTime: 'PT10M', duration: 'PT10M',
              distance: 1650.0, inZone: 'PT540S', heartRateStatistic: { avg: 131, max: 142 },
              speedStatistic: { avg: 9.9, max: 11.2 }, powerStatistic: { avg: null, max: null },
              cadenceStatistic: { avg: 80, max: 84 }, finished: true,
            },
            {
              phaseIndex: 2, phaseRepetitionIndex: 1, repetitionIndex: 1, splitTime: 'PT12M', duration: 'PT2M',
              distance: 400.0, inZone: null, heartRateStatistic: { avg: 165, max: 176 },
              speedStatistic: { avg: 12, max: 13.1 }, powerStatistic: { avg: 300, max: 390 },
              cadenceStatistic: { avg: 90, max: 95 }, finished: null,
            },
          ],
        },
      },
      periodData: null, swimDatas: {}, pauseTimeData: { [EX]: [] }, defaultHrZones: { [EX]: null }, errors: {},
    },
  };
}
