// Helpers for synthesis API tests: upload a fixture HAR (rebased onto a live demo site) through
// the files API, and publish a connector from it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Harness } from './harness.js';

export const FIXTURE_DIR = path.join(__dirname, '../fixtures/har');
/** The origin the fixtures were recorded on (test/fixtures/har/record.ts). */
export const RECORDED_ORIGIN = 'http://127.0.0.1:47811';

/** A fixture HAR as text, with the recorded origin replaced by `origin` (same site, other port). */
export function fixtureHar(name: string, origin: string): string {
  const file = name.startsWith('capture/') ? path.join(FIXTURE_DIR, '..', `${name}.har.json`) : path.join(FIXTURE_DIR, `${name}.har`);
  return fs.readFileSync(file, 'utf8').split(RECORDED_ORIGIN).join(origin).split('127.0.0.1:47811').join(new URL(origin).host);
}

export async function uploadText(h: Harness, name: string, text: string, key?: string): Promise<string> {
  return uploadBytes(h, name, Buffer.from(text), 'application/json', key);
}

/** Uploads `data` through the files API (create, PUT to the signed URL, complete); the file's id. */
export async function uploadBytes(h: Harness, name: string, data: Buffer, contentType: string, key?: string): Promise<string> {
  const init = await h.api('POST', '/v1beta/files', { name, size_bytes: data.length, content_type: contentType }, key);
  expect(init.status, init.text).toBe(200);
  const put = await fetch(init.json.upload_url, { method: 'PUT', headers: init.json.upload_headers, body: new Uint8Array(data) });
  expect(put.status).toBeLessThan(300);
  const done = await h.api('POST', `/v1beta/files/${init.json.file_id}/complete`, undefined, key);
  expect(done.status, done.text).toBe(200);
  return init.json.file_id;
}

export async function synthesizeFrom(h: Harness, har: string, body: Record<string, unknown>, key?: string) {
  const fileId = await uploadText(h, 'flow.har', har, key);
  return h.api(
    'POST',
    '/v1beta/connectors',
    { display_name: 'synthesized', purpose: 'test flow', recording_file_id: fileId, ...body },
    key,
  );
}
