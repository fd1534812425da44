// A Java servlet writes its session id into the links of a session's first pages
// (`/deploy;jsessionid=68FF…`, URL rewriting) while the JSESSIONID cookie is new. Whether a recording
// holds such a URL depends on timing; the session travels in the cookie either way, so synthesis
// reads the URL without it (src/synth/normalize.ts requestUrl) instead of failing to trace it.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { synthesize } from '../../../src/synth/index.js';
import { requestUrl } from '../../../src/synth/normalize.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://tomcat.test';
const SID = '68FF85F6F8D6A88F15392C0D6E1B7A44';

describe('a servlet session id in the path', () => {
  it('is left out of the URL, wherever it sits, in any case', () => {
    expect(requestUrl(`${O}/manager/html/deploy;jsessionid=${SID}?org.apache.catalina.filters.CSRF_NONCE=AB12`)).toBe(
      `${O}/manager/html/deploy?org.apache.catalina.filters.CSRF_NONCE=AB12`,
    );
    expect(requestUrl(`${O}/app;JSESSIONID=${SID}/list`)).toBe(`${O}/app/list`);
    expect(requestUrl(`${O}/search?q=a;b`)).toBe(`${O}/search?q=a;b`);
  });

  it('a form posted to a rewritten URL is replayed at the plain one, its nonce traced', () => {
    const page = `<html><body><form method="post" action="/manager/html/deploy;jsessionid=${SID}?org.apache.catalina.filters.CSRF_NONCE=AB12CD34EF56"><input name="deployPath"><input name="deployWar"></form></body></html>`;
    const r = synthesize({
      recording: har(
        { url: `${O}/manager/html`, html: page, setCookies: { JSESSIONID: SID } },
        {
          method: 'POST',
          url: `${O}/manager/html/deploy;jsessionid=${SID}?org.apache.catalina.filters.CSRF_NONCE=AB12CD34EF56`,
          form: { deployPath: '/orchard', deployWar: '/srv/apps/orchard' },
          cookies: { JSESSIONID: SID },
          html: '<html><body><pre>OK - Deployed application at context path [/orchard]</pre></body></html>',
        },
      ),
      hints: { arguments: { path: '/orchard', dir: '/srv/apps/orchard' }, allow_side_effects: true },
    });
    const post = (r.definition as HttpDefinition).steps.at(-1)!;
    expect(post.url).toBe('/manager/html/deploy');
    expect(post.query?.['org.apache.catalina.filters.CSRF_NONCE']).toMatch(/^\{\{vars\./);
    expect(JSON.stringify(r.definition)).not.toContain(SID);
  });
});
