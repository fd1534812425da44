// The OpenAPI document in the repository is the one the app serves: a change to the API must show
// up in review as a change to openapi/openapi.json.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApi } from '../scripts/export-openapi.js';

describe('exported OpenAPI document', () => {
  it('matches what the app serves (run `npm run openapi:export` after changing the API)', async () => {
    const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
    const current = await renderOpenApi();
    if (committed !== current) {
      expect.fail(
        `openapi/openapi.json is out of date: run \`npm run openapi:export\` and commit the result (${committed.length} → ${current.length} bytes)`,
      );
    }
  });
});
