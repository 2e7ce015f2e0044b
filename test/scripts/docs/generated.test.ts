import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedDocs, ROOT } from '../../../scripts/docs/generate.ts';

describe('generated docs', () => {
  it('match the code: the configuration reference and both API references', async () => {
    const stale = Object.entries(await generatedDocs())
      .filter(([path, text]) => readFileSync(join(ROOT, path), 'utf8') !== text)
      .map(([path]) => path);
    expect(stale, `${stale.join(', ')} differ from the code: run npm run docs`).toEqual([]);
  }, 60_000);
});
