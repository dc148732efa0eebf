import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project folder (the one holding package.json). Found by walking up from this
 * module, because the module runs from two places: host/ when loaded from source, and
 * .build/<fingerprint>/ when compiled (bin/build-server.mjs).
 */
export const projectRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the project folder (no package.json above the service code)');
    dir = parent;
  }
  return dir;
})();
