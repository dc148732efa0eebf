import { archived, eventLog, keyIssued, meta, published, quarantined, revision, type EventLog } from './readmodel-events.ts';

/** A few hundred events over many streams, the same in every process that builds it. */
export function sharedLog(): EventLog {
  const log = eventLog();
  for (let i = 0; i < 120; i++) {
    const path = i % 3 === 0 ? `s${i}` : `g${i % 4}/s${i}`;
    log.site(path, published(path, i + 1, revision(`r${i}`), meta(`Site ${i}`, { tags: [`t${i % 5}`] })));
    if (i % 4 === 0) {
      log.site(path, archived(i + 1, `r${i}`));
      log.site(path, published(path, i + 1, revision(`r${i}b`), meta(`Site ${i} v2`), false));
    }
    if (i % 10 === 0) log.site(path, quarantined(i + 1));
    if (i % 20 === 0) log.add(`key-${i}`, keyIssued(i, `h${i}`));
  }
  return log;
}
