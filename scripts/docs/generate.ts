/**
 * `npm run docs`: writes the generated reference pages (configuration, both APIs) into docs/.
 * test/scripts/docs/generated.test.ts renders the same pages in memory and fails when the files
 * on disk differ, so a change to a setting or a route that forgets them cannot pass CI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApi } from './api.ts';
import { renderConfiguration } from './configuration.ts';
import { applianceDocument, cloudDocument } from './openapi.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Each generated page by its path from the repository's root. */
export async function generatedDocs(): Promise<Record<string, string>> {
  const [cloud, appliance] = [await cloudDocument(), await applianceDocument()];
  return {
    'docs/configuration.md': renderConfiguration(),
    'docs/api/cloud.md': renderApi('Cloud gateway API', 'the cloud publishes at `GET /openapi.json`', cloud),
    'docs/api/appliance.md': renderApi(
      'Appliance local API',
      'the store appliance publishes at `GET /openapi.json`',
      appliance,
    ),
  };
}

async function main() {
  for (const [path, text] of Object.entries(await generatedDocs())) {
    mkdirSync(dirname(join(ROOT, path)), { recursive: true });
    writeFileSync(join(ROOT, path), text);
    process.stdout.write(`wrote ${path}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
