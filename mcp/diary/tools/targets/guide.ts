/** The modelling guidance and worked examples shown in the target tools' descriptions (spec §2, §5.15). */

export const PHASE_GUIDE =
  'Modelling: a VOLUME target (no phases) needs exactly one of duration_s or distance_m. With phases it is PHASED: ' +
  'warmup/cooldown are single duration-goaled blocks (duration_s seconds, optional intensity and name); ' +
  'repeat needs reps >= 2 and a goal with exactly one of distance_m (metres) or duration_s (seconds), optional intensity for the work part and optional recovery {duration_s}. ' +
  'A single continuous zoned effort with a duration goal is one warmup or cooldown phase with intensity and a custom name; ' +
  'a single continuous distance-goaled effort needs a repeat (e.g. 2 x 2500 m for 5 km); an unzoned unstructured effort is a VOLUME target. ' +
  'Intensity: at most one of hr_zone, power_zone, speed_zone (zone indices 1-5, not watts or speeds) or label (easy, aerobic, tempo, threshold, vo2max); power_zone needs a power-capable sport such as cycling (sport_id 2).';

export const EXAMPLE =
  'Example: {"name": "Track 6x400", "date": "2026-03-12", "time": "18:00", "sport_id": 1, "phases": [' +
  '{"type": "warmup", "duration_s": 600, "intensity": {"hr_zone": 2}}, ' +
  '{"type": "repeat", "reps": 6, "goal": {"distance_m": 400}, "intensity": {"speed_zone": 5}, "recovery": {"duration_s": 90}}, ' +
  '{"type": "cooldown", "duration_s": 600}]}; a VOLUME example: {"name": "Easy run", "date": "2026-03-14", "duration_s": 2700}.';
