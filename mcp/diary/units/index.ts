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
export * from './training-body.ts';
export * from './training-details.ts';
export * from './training-list.ts';
export * from './training-reps.ts';
export * from './training-summary.ts';
export * from './target.ts';
