import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files are handed to the workers: project by project (in the order the config
 * lists them), and in each the longest first, so that no long file starts last and holds one
 * worker while the others have finished. "Longest" is the duration of the previous run where
 * vitest's cache has one for every file of the project; on a fresh clone (CI) it is estimated
 * from the size of the file and of the files it imports from its own folder: the shared suites
 * (`deploys.suite.ts`, `readmodel-contract.ts`, …) are where a small file's long run is written.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const projects = this.ctx.projects.map((p) => p.name);
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of files) byProject.set(file.project.name, [...(byProject.get(file.project.name) ?? []), file]);
    const ordered = [...byProject.keys()].sort((a, b) => projects.indexOf(a) - projects.indexOf(b));
    return ordered.flatMap((name) => {
      const specs = byProject.get(name)!;
      const durations = specs.map((spec) => this.ctx.cache.getFileTestResults(`${name}:${relative(this.ctx.config.root, spec.moduleId)}`)?.duration);
      const known = durations.every((d) => d !== undefined);
      const length = new Map(specs.map((spec, i) => [spec, known ? durations[i]! : estimatedLength(spec.moduleId)]));
      return [...specs].sort((a, b) => length.get(b)! - length.get(a)!);
    });
  }
}

function estimatedLength(file: string): number {
  const source = readFileSync(file, 'utf8');
  let bytes = source.length;
  for (const [, name] of source.matchAll(/from '\.\/([^']+)'/g)) {
    const sibling = join(dirname(file), name!);
    if (existsSync(sibling)) bytes += statSync(sibling).size;
  }
  return bytes;
}
