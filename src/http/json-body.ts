// JSON body parsing with FastAPI's behaviour: an empty body is "no body" (the route schema
// decides whether that is allowed), malformed JSON is a 422 `json_invalid` — never a 400/500.
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { InvalidInput } from '../lib/errors.js';
import { NUL_FREE_BODIES } from '../lib/json-schema.js';

export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    const deep = depthExceeded(text, MAX_JSON_DEPTH);
    if (deep >= 0) {
      return done(
        new InvalidInput([
          {
            loc: ['body', deep],
            msg: 'JSON decode error',
            type: 'json_invalid',
            ctx: { error: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` },
          },
        ]),
        undefined,
      );
    }
    try {
      const body = sjson.parse(text, { protoAction: 'remove', constructorAction: 'remove' });
      if (body && typeof body === 'object' && !text.includes('\\u0000')) NUL_FREE_BODIES.add(body);
      done(null, body);
    } catch (e) {
      const message = (e as Error).message;
      const pos = Number(/position (\d+)/.exec(message)?.[1] ?? 0);
      // No `input` echo and no parser message that quotes the text: it may hold a credential
      // (secrets routes). V8 quotes the body (`"…" is not valid JSON`) or the bad token.
      done(
        new InvalidInput([
          { loc: ['body', pos], msg: 'JSON decode error', type: 'json_invalid', ctx: { error: describeJsonError(message) } },
        ]),
        undefined,
      );
    }
  });
}

/** The parser's complaint without any excerpt of the text it was given. */
function describeJsonError(message: string): string {
  if (/Unexpected end of JSON input/.test(message)) return 'Unexpected end of JSON input';
  if (/^Expected [^"]*$/.test(message) || /^Bad control character[^"]*$/.test(message)) return message;
  return 'Invalid JSON';
}

export const MAX_JSON_DEPTH = 128;

/** Position of the bracket that opens level `max + 1`, or -1. Strings are skipped, escapes honoured. */
export function depthExceeded(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return i;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return -1;
}
