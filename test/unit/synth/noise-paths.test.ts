// Telemetry by path: `/collect`, `/beacon`… are dropped whatever they answer; an app's own
// `/events`, `/metrics` or `/track` paths are data when they answer with something (a calendar's
// events, Prometheus' metrics, a music app's tracks) and telemetry only when nothing comes back.
import { describe, expect, it } from 'vitest';
import { dropReason } from '../../../src/synth/noise.js';
import { normalize } from '../../../src/synth/normalize.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://app.test';
const reason = (spec: Parameters<typeof har>[0]) => dropReason(normalize(har(spec)).exchanges[0]!);

describe('telemetry paths', () => {
  it('an app answering its own events, metrics or tracks with data keeps them', () => {
    expect(
      reason({ url: `${O}/api/events?date=2026-06-01`, body: { events: [{ id: 4, title: 'Harvest day', at: '2026-06-01' }] } }),
    ).toBeNull();
    expect(reason({ url: `${O}/metrics`, body: 'process_cpu_seconds_total 12.5\nup 1\n', mime: 'text/plain' })).toBeNull();
    expect(reason({ url: `${O}/api/albums/9/track`, body: [{ n: 1, title: 'Orchard song', length: 241 }] })).toBeNull();
  });

  it('the same paths answering nothing, and the always-telemetry ones, are dropped', () => {
    expect(reason({ method: 'POST', url: `${O}/api/events`, json: { e: 'click' }, status: 204, body: '' })).toBe(
      'analytics/telemetry path',
    );
    expect(reason({ method: 'POST', url: `${O}/track`, json: { e: 'view' }, body: { ok: true } })).toBe('analytics/telemetry path');
    expect(reason({ url: `${O}/collect?v=2&tid=G-1`, body: { events: [{ id: 4, title: 'x'.repeat(40) }] } })).toBe(
      'analytics/telemetry path',
    );
  });
});

describe('assets', () => {
  it('a read of a script or stylesheet is an asset; a write is not, whatever its name or answer', () => {
    expect(reason({ url: `${O}/assets/app.js`, body: 'var x = 1;', mime: 'application/javascript' })).toBe('static asset (extension)');
    expect(reason({ url: `${O}/theme`, body: 'body{}', mime: 'text/css' })).toBe('static asset (text/css)');
    // Rails' remote upload: POST /uploads.js answers JavaScript holding the token the form sends next.
    expect(
      reason({ method: 'POST', url: `${O}/uploads.js?attachment_id=1`, body: "$('input.token').val('1.ab12');", mime: 'text/javascript' }),
    ).toBeNull();
  });
});
