// JSON Schema of "connector-definition/v1" (mirrors types.ts). Strict (no unknown keys, so a typo
// is a 422 instead of a silently ignored field) except `meta` and `provenance`, which the
// synthesizer and humans may extend freely.
import { COOKIE_NAME_PATTERN, HTTP_METHODS } from './types.js';
const str = { type: 'string' };
const nonEmpty = { type: 'string', minLength: 1 };
const templateMap = { type: 'object', additionalProperties: { type: 'string' } };
const annotated = {
  note: { type: 'string', maxLength: 4000 },
  provenance: { type: 'object', additionalProperties: true },
};
const ERROR_TYPES = [
  'auth_required',
  'invalid_input',
  'site_unavailable',
  'anti_bot',
  'site_changed',
  'internal_error',
  'crash',
  'unhandled',
];
const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'json'];

const extractorCommon = {
  ...annotated,
  all: { type: 'boolean' },
  required: { type: 'boolean' },
  default: {},
  type: { enum: VALUE_TYPES },
};

const extractorBranch = (from: string | string[], props: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties: { from: Array.isArray(from) ? { enum: from } : { const: from }, ...extractorCommon, ...props },
  required: ['from', ...required],
  additionalProperties: false,
});

/** `fields` of an extractor: one object per match, each field described by `props` (with `type`,
 * `required` and `default` as every field has them). */
const fieldsOf = (props: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  // (A field is a key of the result's record: one that would reach its prototype is refused.)
  propertyNames: { not: { enum: ['__proto__', 'constructor', 'prototype'] } },
  additionalProperties: {
    type: 'object',
    properties: { ...annotated, ...props, type: { enum: VALUE_TYPES }, required: { type: 'boolean' }, default: {} },
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  },
  minProperties: 1,
});

/** `where` and `select`: the record of a list the run's arguments name, then a value inside it. */
const recordWhere = {
  where: {
    type: 'object',
    propertyNames: { minLength: 1, maxLength: 200, not: { enum: ['__proto__', 'constructor', 'prototype'] } },
    additionalProperties: { type: 'string', maxLength: 2000 },
    minProperties: 1,
    maxProperties: 8,
  },
  select: nonEmpty,
};

/** A CSS or XML extractor's own properties: a selector, an attribute, or fields per matched element. */
const selectorProps = {
  selector: nonEmpty,
  attr: nonEmpty,
  fields: fieldsOf({
    column: nonEmpty,
    selector: nonEmpty,
    attr: nonEmpty,
    except: nonEmpty,
    pattern: nonEmpty,
    fill_down: { type: 'boolean' },
  }),
  headings: { type: 'boolean' },
  ...recordWhere,
};

const matcher = {
  type: 'object',
  properties: {
    ...annotated,
    status: { type: 'array', items: { type: 'integer', minimum: 100, maximum: 599 }, minItems: 1 },
    css: nonEmpty,
    text: nonEmpty,
    url: nonEmpty,
  },
  additionalProperties: false,
  minProperties: 1,
};

const detect = {
  type: 'object',
  properties: {
    login_page: { type: 'array', items: { $ref: '#/definitions/matcher' } },
    anti_bot: { type: 'array', items: { $ref: '#/definitions/matcher' } },
  },
  additionalProperties: false,
};

const httpStep = {
  type: 'object',
  properties: {
    ...annotated,
    id: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_-]*$', maxLength: 100 },
    when: str,
    method: { enum: [...HTTP_METHODS] },
    url: nonEmpty,
    headers: templateMap,
    cookies: {
      type: 'object',
      propertyNames: { pattern: COOKIE_NAME_PATTERN },
      additionalProperties: { type: 'string' },
    },
    query: templateMap,
    body: {
      type: 'object',
      properties: {
        json: {},
        form: templateMap,
        multipart: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: nonEmpty, value: str, file: nonEmpty, filename: str, content_type: str },
            required: ['name'],
            additionalProperties: false,
          },
        },
        text: str,
        file: nonEmpty,
        content_type: nonEmpty,
      },
      additionalProperties: false,
      minProperties: 1,
    },
    follow_redirects: { type: 'boolean' },
    follow_header: { type: 'string', pattern: '^[A-Za-z0-9-]{1,100}$' },
    expect_redirect: { type: 'boolean' },
    expect_status: { type: 'array', items: { type: 'integer', minimum: 100, maximum: 599 }, minItems: 1 },
    error_rules: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          ...annotated,
          when: { $ref: '#/definitions/matcher' },
          error: { enum: ERROR_TYPES },
          message: nonEmpty,
          retryable: { type: ['boolean', 'null'] },
        },
        required: ['when', 'error', 'message'],
        additionalProperties: false,
      },
    },
    extract: { type: 'object', additionalProperties: { $ref: '#/definitions/extractor' } },
    paginate: {
      type: 'object',
      properties: {
        ...annotated,
        mode: { enum: ['page', 'cursor', 'next_url'] },
        param: nonEmpty,
        start: { type: 'integer' },
        step: { type: 'integer', minimum: 1, maximum: 1000000 },
        next: { $ref: '#/definitions/extractor' },
        stop_when_empty: nonEmpty,
        stop_when_false: nonEmpty,
        max_pages: { type: 'integer', minimum: 1, maximum: 10000 },
        max_items: { type: ['string', 'integer'] },
        until_found: { type: 'boolean' },
      },
      required: ['mode'],
      additionalProperties: false,
    },
  },
  required: ['id', 'url'],
  additionalProperties: false,
};

const stepBase = {
  ...annotated,
  id: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_-]*$', maxLength: 100 },
  when: str,
  timeout_ms: { type: 'integer', minimum: 1, maximum: 600000 },
};
const browserBranch = (action: string, props: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties: { action: { const: action }, ...stepBase, ...props },
  required: ['action', ...required],
  additionalProperties: false,
});

const browserStep = {
  type: 'object',
  required: ['action'],
  discriminator: { propertyName: 'action' },
  oneOf: [
    browserBranch('navigate', { url: nonEmpty }, ['url']),
    browserBranch('click', { selector: nonEmpty }, ['selector']),
    browserBranch('type', { selector: nonEmpty, text: str }, ['selector', 'text']),
    browserBranch('select', { selector: nonEmpty, value: str }, ['selector', 'value']),
    browserBranch('press', { key: nonEmpty, selector: nonEmpty }, ['key']),
    browserBranch('wait', {
      selector: nonEmpty,
      state: { enum: ['attached', 'detached', 'visible', 'hidden'] },
      url: nonEmpty,
      load: { enum: ['load', 'domcontentloaded', 'networkidle'] },
      ms: { type: 'integer', minimum: 0, maximum: 600000 },
    }),
    browserBranch('extract', { values: { type: 'object', additionalProperties: { $ref: '#/definitions/extractor' }, minProperties: 1 } }, [
      'values',
    ]),
    browserBranch(
      'loop',
      {
        steps: { type: 'array', items: { $ref: '#/definitions/browserStep' }, minItems: 1 },
        while_selector: nonEmpty,
        max_iterations: { type: 'integer', minimum: 1, maximum: 1000 },
      },
      ['steps'],
    ),
  ],
};

const base = {
  format: { const: 'connector-definition/v1' },
  meta: { type: 'object', additionalProperties: true },
};

export const DEFINITION_SCHEMA = {
  $id: 'connector-definition/v1',
  type: 'object',
  required: ['format', 'engine'],
  discriminator: { propertyName: 'engine' },
  oneOf: [
    {
      type: 'object',
      properties: {
        ...base,
        engine: { const: 'http' },
        base_url: nonEmpty,
        basic_auth: nonEmpty,
        headers: templateMap,
        login: {
          type: 'object',
          properties: { ...annotated, slot: nonEmpty, steps: { type: 'array', items: { $ref: '#/definitions/httpStep' }, minItems: 1 } },
          required: ['slot', 'steps'],
          additionalProperties: false,
        },
        detect,
        steps: { type: 'array', items: { $ref: '#/definitions/httpStep' }, minItems: 1, maxItems: 200 },
        result: {},
      },
      required: ['format', 'engine', 'steps', 'result'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        ...base,
        engine: { const: 'browser' },
        basic_auth: nonEmpty,
        login: {
          type: 'object',
          properties: { ...annotated, slot: nonEmpty, steps: { type: 'array', items: { $ref: '#/definitions/browserStep' }, minItems: 1 } },
          required: ['slot', 'steps'],
          additionalProperties: false,
        },
        detect,
        steps: { type: 'array', items: { $ref: '#/definitions/browserStep' }, minItems: 1, maxItems: 500 },
        result: {},
      },
      required: ['format', 'engine', 'steps', 'result'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        ...base,
        engine: { const: 'script' },
        source: { type: 'string', minLength: 1, maxLength: 1_000_000 },
        browser: { type: 'boolean' },
      },
      required: ['format', 'engine', 'source'],
      additionalProperties: false,
    },
  ],
  definitions: {
    matcher,
    httpStep,
    browserStep,
    extractor: {
      type: 'object',
      required: ['from'],
      discriminator: { propertyName: 'from' },
      oneOf: [
        extractorBranch(
          'json',
          {
            path: nonEmpty,
            ...recordWhere,
          },
          ['path'],
        ),
        extractorBranch('css', selectorProps, ['selector']),
        extractorBranch('xml', selectorProps, ['selector']),
        extractorBranch(
          'regex',
          { pattern: nonEmpty, flags: { type: 'string', pattern: '^[gimsuy]*$' }, group: { type: ['integer', 'string'] } },
          ['pattern'],
        ),
        extractorBranch(
          'calls',
          {
            call: { type: 'string', pattern: '^[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*$', maxLength: 200 },
            in: nonEmpty,
            fields: fieldsOf({ arg: { type: 'integer', minimum: 0, maximum: 100 }, key: { type: 'string' }, text: { type: 'boolean' } }, [
              'arg',
            ]),
          },
          ['call'],
        ),
        extractorBranch('header', { name: nonEmpty }, ['name']),
        extractorBranch('cookie', { name: nonEmpty }, ['name']),
        extractorBranch(['status', 'url', 'body'], {}),
      ],
    },
  },
} as const;
