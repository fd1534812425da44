// HTTP challenges a run answers (http-auth.ts): WWW-Authenticate parsing, and Digest answers
// checked against RFC 7616's worked examples (§3.9.1) and RFC 2617's (§3.5).
import { describe, expect, it } from 'vitest';
import { ChallengeAnswer, parseChallenges, pickChallenge } from '../../src/runtime/worker/engines/http-auth.js';

const RFC7616 = {
  realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};
const MUFASA = { username: 'Mufasa', password: 'Circle of Life' };
const param = (header: string, name: string) => new RegExp(`${name}="?([^",]*)"?`).exec(header)?.[1];

describe('WWW-Authenticate challenges', () => {
  it('reads several challenges from one value and from several headers, with quoted commas and escapes', () => {
    const cs = parseChallenges([
      'Digest realm="a, \\"b\\"", qop="auth, auth-int", nonce=abc, algorithm=SHA-256, Digest realm="x", nonce="n2", Basic realm="r"',
      'Bearer realm="api"',
    ]);
    expect(cs.map((c) => c.scheme)).toEqual(['digest', 'digest', 'basic', 'bearer']);
    expect(cs[0]!.params).toEqual({ realm: 'a, "b"', qop: 'auth, auth-int', nonce: 'abc', algorithm: 'SHA-256' });
    expect(cs[2]!.params).toEqual({ realm: 'r' });
    expect(parseChallenges(undefined)).toEqual([]);
  });

  it('answers the strongest Digest it can compute, then Basic; none for an algorithm or qop it does not know', () => {
    const pick = (v: string) => pickChallenge(parseChallenges(v));
    expect(pick('Digest realm="r", nonce="n", algorithm=MD5, Digest realm="r", nonce="n", algorithm=SHA-256')?.params.algorithm).toBe(
      'SHA-256',
    );
    expect(pick('Digest realm="r", nonce="n", algorithm=SHA-1-unknown, Basic realm="r"')?.scheme).toBe('basic');
    expect(pick('Digest realm="r", nonce="n", qop="auth-conf"')).toBeNull();
    expect(pick('Negotiate')).toBeNull();
  });
});

describe('Digest answers', () => {
  const answer = (challenge: string, login = MUFASA) =>
    new ChallengeAnswer('http://www.example.org', pickChallenge(parseChallenges(challenge))!, login, () => RFC7616.cnonce);
  const rfcChallenge = (alg: string) =>
    `Digest realm="${RFC7616.realm}", qop="auth, auth-int", algorithm=${alg}, nonce="${RFC7616.nonce}", opaque="${RFC7616.opaque}"`;

  it('MD5 and SHA-256 give the responses of RFC 7616 §3.9.1', () => {
    const url = new URL('http://www.example.org/dir/index.html');
    const md5 = answer(rfcChallenge('MD5')).authorization('GET', url);
    expect(param(md5, 'response')).toBe('8ca523f5e9506fed4657c9700eebdbec');
    const sha = answer(rfcChallenge('SHA-256')).authorization('GET', url);
    expect(param(sha, 'response')).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
    expect(sha).toContain('username="Mufasa"');
    expect(sha).toContain('uri="/dir/index.html"');
    expect(sha).toContain('qop=auth, nc=00000001');
    expect(sha).toContain(`opaque="${RFC7616.opaque}"`);
    expect(sha).not.toContain('Circle of Life');
  });

  it('RFC 2617 §3.5 (MD5, qop=auth) and a count per nonce that a new (stale) nonce restarts', () => {
    const a = new ChallengeAnswer(
      'http://www.nowhere.org',
      parseChallenges(
        'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
      )[0]!,
      // (RFC 2617's password differs from RFC 7616's by one capital.)
      { username: 'Mufasa', password: 'Circle Of Life' },
      () => '0a4f113b',
    );
    const first = a.authorization('GET', new URL('http://www.nowhere.org/dir/index.html'));
    expect(param(first, 'response')).toBe('6629fae49393a05397450978507c4ef1');
    expect(a.authorization('GET', new URL('http://www.nowhere.org/dir/index.html'))).toContain('nc=00000002');
    // (Not stale: the credentials were refused, so nothing is renewed.)
    expect(a.renew(parseChallenges('Digest realm="testrealm@host.com", nonce="other"'))).toBe(false);
    expect(a.renew(parseChallenges('Digest realm="testrealm@host.com", nonce="fresh", qop="auth", stale=TRUE'))).toBe(true);
    const renewed = a.authorization('GET', new URL('http://www.nowhere.org/dir/index.html'));
    expect(renewed).toContain('nonce="fresh"');
    expect(renewed).toContain('nc=00000001');
  });

  it('escapes a quote in the username, sends a non-ASCII one as username*, hashes it for userhash, and covers the body for auth-int', () => {
    const url = new URL('http://h/p?q=1');
    expect(answer('Digest realm="r", nonce="n", qop="auth"', { username: 'a"b\\c', password: 'p' }).authorization('GET', url)).toContain(
      'username="a\\"b\\\\c"',
    );
    expect(answer('Digest realm="r", nonce="n", qop="auth"', { username: 'Jäsøn', password: 'p' }).authorization('GET', url)).toContain(
      "username*=UTF-8''J%C3%A4s%C3%B8n",
    );
    const hashed = answer('Digest realm="api@example.org", nonce="n", qop="auth", algorithm=SHA-256, userhash=true', {
      username: 'Jäsøn Doe',
      password: 'p',
    }).authorization('GET', url);
    // (RFC 7616 §3.9.2: the hash of "Jäsøn Doe:api@example.org".)
    expect(param(hashed, 'username')).toBe('5a1a8a47df5c298551b9b42ba9b05835174a5bd7d511ff7fe9191d8e946fc4e7');
    expect(hashed).toContain('userhash=true');
    const int = answer('Digest realm="r", nonce="n", qop="auth-int"');
    const withBody = int.authorization('POST', url, Buffer.from('a=1'));
    expect(withBody).toContain('qop=auth-int');
    expect(param(withBody, 'response')).not.toBe(
      param(answer('Digest realm="r", nonce="n", qop="auth-int"').authorization('POST', url, Buffer.from('a=2')), 'response'),
    );
    expect(param(withBody, 'uri')).toBe('/p?q=1');
  });

  it('Basic: base64 of user:password in UTF-8, a colon in the password kept', () => {
    const b = new ChallengeAnswer('http://h', parseChallenges('Basic realm="r"')[0]!, { username: 'u', password: 'p:w ä' });
    expect(b.authorization('GET', new URL('http://h/'))).toBe(`Basic ${Buffer.from('u:p:w ä', 'utf8').toString('base64')}`);
  });
});
