/** Every canonical ↔ upstream conversion, one module per family; pure functions, no I/O. */
export * from './account.ts';
export * from './calendar.ts';
export * from './date.ts';
export * from './duration.ts';
export * from './exercises.ts';
export * from './intensity.ts';
export * from './json.ts';
export * from './measure.ts';
export * from './phases.ts';
export * from './progress.ts';
export * from './session-body.ts';
export * from './session-details.ts';
export * from './session-list.ts';
export * from './session-reps.ts';
export * from './session-summary.ts';
export * from './target.ts';
