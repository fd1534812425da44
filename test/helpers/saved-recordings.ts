// Recordings saved from real applications (test/fixtures/real/<app>/<name>.har) and the pages in
// them, for the unit tests that synthesize from them; and a rule read on a page as a run reads it.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractValue, View } from '../../src/runtime/worker/engines/extract.js';
import { synthesize } from '../../src/synth/index.js';

const REAL = fileURLToPath(new URL('../fixtures/real/', import.meta.url));

/** The saved recording `name` of `app`. */
export const savedRecording = (app: string, name: string) => JSON.parse(fs.readFileSync(`${REAL}${app}/${name}.har`, 'utf8'));

/** The last HTML page of a saved recording whose address matches `part`. */
export const savedPage = (app: string, name: string, part: RegExp): string =>
  savedRecording(app, name)
    .log.entries.filter((e: any) => part.test(e.request.url) && /html/.test(e.response.content.mimeType))
    .at(-1).response.content.text;

/** What an extraction rule reads from `html`, as a run reads it. */
export const readRule = (extractor: unknown, html: string): any =>
  extractValue(extractor as never, new View({ url: 'http://x/', status: 200, text: html }), 't');

/**
 * Synthesis from the saved recording `name` of `app` with these arguments hinted; given the login
 * the recording signed in with, it is the `account` slot's value.
 */
export const synthSaved = (app: string, name: string, args: Record<string, string>, login?: { username: string; password: string }): any =>
  synthesize({
    recording: savedRecording(app, name),
    hints: { arguments: args, secrets: login ? { account: 's1' } : {} },
    ...(login ? { secretValues: { account: { type: 'login', ...login, totp_secret: null } } } : {}),
  } as never);
