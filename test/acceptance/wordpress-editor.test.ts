// Acceptance on WordPress's block editor (Gutenberg), the single-page app inside wp-admin: a person
// writes a post and publishes it. Recorded here and now with Playwright's recordHar in Chromium,
// then synthesized, replay-validated, published and RUN with NEW arguments; the truth is read from
// WordPress's REST API. What it brings: the post exists before it is written (post-new.php creates
// an auto-draft and prints its id), the save is a JSON POST to `?rest_route=/wp/v2/posts/<id>`
// with the REST nonce (X-WP-Nonce, printed in an inline script), and the typed text travels inside
// the block markup (`<!-- wp:paragraph --><p>…</p>`).
// Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';
import { run } from '../helpers/runs.js';
import { synthesizeFrom, uploadBytes } from '../helpers/synth.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.wordpress);
const PASSWORD = 'wp-admin-pass-1';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])(
  'synthesis on the WordPress block editor (%s)',
  (backend) => {
    const live = liveApp(APPS.wordpress, backend, 'admin', PASSWORD);
    const { record, flow } = live;

    it('write and publish a post in the block editor: the run publishes a NEW post with NEW text', async () => {
      const har = await record('editor', async (page, base) => {
        await page.goto(`${base}/wp-login.php`);
        await page.fill('#user_login', 'admin');
        await page.fill('#user_pass', PASSWORD);
        await Promise.all([page.waitForURL(/wp-admin/), page.click('#wp-submit')]);
        await page.goto(`${base}/wp-admin/post-new.php`);
        // (The editor greets a new user with a guide; a person closes it, and the editor saves that
        // preference in the background: a write the flow does not need.)
        await page
          .waitForSelector('.edit-post-welcome-guide', { timeout: 8000 })
          .then(() => page.keyboard.press('Escape'))
          .catch(() => {});
        await page.click('[aria-label="Add title"]');
        await page.keyboard.type('Pruning in Winter');
        await page.keyboard.press('Enter');
        await page.keyboard.type('Cut the dead wood first.');
        await page.click('.editor-post-publish-panel__toggle');
        const [published] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST' && /wp%2Fv2%2Fposts%2F\d+|wp\/v2\/posts\/\d+/.test(r.url())),
          page.click('.editor-post-publish-button'),
        ]);
        // (Its body in full before the recording ends: a HAR closed first holds no answer, and the
        // connector would not know the published post's shape.)
        await published.body();
      });
      const title = `Mulching Plums ${Date.now()}`;
      const { result } = await flow(
        'wp-editor',
        har,
        {
          hints: {
            arguments: { title: 'Pruning in Winter', text: 'Cut the dead wood first.' },
            secrets: { account: live.secret },
            allow_side_effects: true,
          },
        },
        { arguments: { title, text: 'Plums want mulch in autumn.' }, secret_bindings: { account: live.secret } },
      );
      const posts = (await (
        await fetch(`${live.url}/index.php?rest_route=/wp/v2/posts&search=${encodeURIComponent(title)}`)
      ).json()) as any[];
      expect(posts.map((p) => p.title.rendered)).toEqual([title]);
      expect(posts[0].content.rendered).toContain('<p>Plums want mulch in autumn.</p>');
      // The answer is WordPress's own: the published post.
      expect(result).toMatchObject({ id: posts[0].id, status: 'publish' });
      // A NEW post: the editor made a draft for this visit (its id in a hidden field and the save's
      // URL), which the run read from the page — the recorded post keeps its own title.
      const recorded = (await (
        await fetch(`${live.url}/index.php?rest_route=/wp/v2/posts&search=${encodeURIComponent('Pruning in Winter')}`)
      ).json()) as any[];
      expect(recorded.length).toBeGreaterThan(0);
      expect(recorded.map((p) => p.id)).not.toContain(result.id);
    });
    it('upload a file to the media library (Media → Add New, chosen in the file chooser): run with ANOTHER file', async () => {
      const notes = Buffer.concat([Buffer.from('%PDF-1.4\n'), crypto.randomBytes(12_000)]);
      const har = await live.recordCaptured('media', async (page, base, choose) => {
        await page.context().route(
          (u) => u.host !== new URL(base).host,
          (r) => r.abort(),
        );
        await page.goto(`${base}/wp-login.php`);
        await page.fill('#user_login', 'admin');
        await page.fill('#user_pass', PASSWORD);
        await Promise.all([page.waitForURL(/wp-admin/), page.click('#wp-submit')]);
        await page.goto(`${base}/wp-admin/media-new.php`);
        const shown = page.waitForResponse((r) => /async-upload\.php/.test(r.url()) && /fetch=3/.test(r.request().postData() ?? ''));
        await choose(page, () => page.click('#plupload-browse-button'), [
          { name: 'orchard-survey.pdf', mimeType: 'application/pdf', buffer: notes },
        ]);
        await shown;
      });
      const c = await synthesizeFrom(live.h, har, {
        purpose: 'upload a file to the media library',
        hints: { secrets: { account: live.secret }, allow_side_effects: true },
      });
      expect(c.status, c.text).toBe(200);
      const fileArg = Object.entries<any>(c.json.input_schema.properties).find(([, p]) => p.format === 'file-id')?.[0];
      expect(fileArg).toBeTruthy();
      const def = (await live.h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
      expect(def.meta.validation).toMatchObject({ replayed: true });

      const guide = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(15_000)]);
      const fileId = await uploadBytes(live.h, 'pear-grafting-guide.pdf', guide, 'application/pdf');
      const out = await run(live.h, {
        connector_id: c.json.id,
        arguments: { [fileArg!]: fileId },
        secret_bindings: { account: live.secret },
      });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      // WordPress's own record of it, and the bytes it stored are the caller's.
      const [media] = (await (
        await fetch(`${live.url}/index.php?rest_route=/wp/v2/media&search=pear-grafting-guide&orderby=id&order=desc`)
      ).json()) as any[];
      expect(media.mime_type).toBe('application/pdf');
      // (Debian's WordPress keeps uploads under /var/lib/wordpress/wp-content, outside the served tree.)
      const stored = fs.readFileSync(`/var/lib/wordpress/wp-content/uploads/${new URL(media.source_url).pathname.split('/uploads/')[1]}`);
      expect(stored.equals(guide)).toBe(true);
      // The answer is the upload's own: the new attachment's id (named as the page then sent it).
      expect(out.result).toEqual({ attachment_id: media.id, status: 200 });
    });
  },
);
