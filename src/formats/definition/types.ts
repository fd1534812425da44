// The connector definition format ("connector-definition/v1"): the versioned, human-readable plan a
// connector runs. Hand-written definitions and the synthesizer's output share this one format, so
// every step and extractor can carry `note` (why it exists) and `provenance` (where in a recording
// it came from). docs/connector-definition.md explains it with demo-site examples; the JSON Schema
// in schema.ts is the machine-checked version of these types and must be kept in step with them.

export const DEFINITION_FORMAT = 'connector-definition/v1' as const;

export type Engine = 'http' | 'browser' | 'script';

/** RunError.type values a definition can raise or map to. */
export type RunErrorType =
  | 'auth_required'
  | 'invalid_input'
  | 'site_unavailable'
  | 'anti_bot'
  | 'site_changed'
  | 'internal_error'
  | 'crash'
  | 'unhandled';

/**
 * A template is a string with `{{ expression }}` holes. An expression is a path, optionally
 * piped through filters: `{{args.q}}`, `{{secrets.account.password}}`, `{{secrets.account.totp}}`,
 * `{{vars.csrf}}`, `{{page.number}}`, `{{item.id | int}}`, `{{args.limit | default:10}}`.
 * A string that is exactly one hole keeps the value's JSON type (number, array, object…);
 * anything else is string interpolation. Roots: args, secrets, vars, page, item (inside $map),
 * run (id, connector_id, connector_version). Filters: see FILTERS in template.ts.
 */
export type Template = string;

/** Any JSON value whose strings are templates; `{"$map": …}` objects transform arrays, `{"$patch": …}` edit a document. */
export type JsonTemplate = null | boolean | number | string | JsonTemplate[] | { [k: string]: JsonTemplate } | MapTemplate | PatchTemplate;

/**
 * Read-modify-write: `{"$patch": "{{vars.config}}", "set": [{"at": ["folders", {"id": "{{args.folder}}"},
 * "label"], "value": "{{args.label}}"}]}` is the document a step read, with each `at` set. In `at`, a
 * string is a key, a number an index, and an object the one element of a list whose fields equal its
 * values (none or several: the run fails with invalid_input). An entry with `append` instead of
 * `value` adds an element to the list `at` names (a record the write adds).
 */
export interface PatchTemplate {
  $patch: Template;
  set: ({ at: PatchPath; value: JsonTemplate } | { at: PatchPath; append: JsonTemplate })[];
}
export type PatchPath = (Template | number | Record<string, Template>)[];

/** `{"$map": "{{vars.rows}}", "as": "row", "to": {"id": "{{row.id | int}}"}}` → one `to` per element. */
export interface MapTemplate {
  $map: Template;
  /** Name of the element inside `to` (default "item"). */
  as?: string;
  to: JsonTemplate;
}

/** Where a definition, step or extractor came from; written by the synthesizer, optional by hand. */
export interface Provenance {
  capture_session_id?: string;
  recording_file_id?: string;
  /** Ids (or indices) of recorded requests/actions this element was derived from. */
  entries?: (string | number)[];
  /** Why this element was chosen (free text, for reviewers). */
  reason?: string;
  /** 0..1 confidence of an inferred choice. */
  confidence?: number;
  [k: string]: unknown;
}

/** Fields every step and extractor may carry; ignored by the engines. */
export interface Annotated {
  note?: string;
  provenance?: Provenance;
}

export interface DefinitionMeta {
  /** Who wrote it: "hand" or a synthesizer id such as "synth/1.0". */
  generated_by?: string;
  generated_at?: string;
  capture_session_id?: string;
  recording_file_id?: string;
  hints?: string;
  notes?: string;
  [k: string]: unknown;
}

interface DefinitionBase {
  format: typeof DEFINITION_FORMAT;
  engine: Engine;
  meta?: DefinitionMeta;
}

// ---------------------------------------------------------------- matching and extraction

/**
 * A condition on a response or page; all given fields must hold. Used to recognise the login
 * page, anti-bot challenges and site-specific errors.
 */
export interface Matcher extends Annotated {
  status?: number[];
  /** CSS selector that must match at least one element of an HTML body. */
  css?: string;
  /** Substring of the body (case-insensitive). */
  text?: string;
  /** Regular expression on the final URL. */
  url?: string;
}

export type ValueType = 'string' | 'number' | 'integer' | 'boolean' | 'json';

interface ExtractorBase extends Annotated {
  /** true: every match as an array; false (default): the first match. */
  all?: boolean;
  /** Default true: no match fails the run with site_changed. */
  required?: boolean;
  /** Value used when nothing matched and required is false (default null, or [] with all). */
  default?: unknown;
  /** Coerce each value ("json" parses a string as JSON). */
  type?: ValueType;
}

/** The record of a list that the run's arguments name (json, and css/xml with `fields`). */
export interface RecordWhere {
  /**
   * The record the run's arguments name, not the one at a recorded position: each match (a JSON
   * list's records, `$.data[*]`; the objects `fields` builds from a table's rows) is kept only when
   * its fields (a key, or a dotted path inside the record) equal these templates, rendered for the
   * run (`{"title": "{{args.title}}"}`; `args` and `vars` only). Equal as text; when no record is,
   * the one equal ignoring case and spacing. No record kept while the list has some: the run fails
   * `invalid_input` (the caller named a record the site doesn't hold).
   */
  where?: Record<string, Template>;
  /**
   * JSONPath read inside each kept record (`$.id`); omitted = the record itself. `~` (JSONPath-plus's
   * property-name operator), json only: the record's own key in the object that holds it — a list
   * keyed by id (`{"torrents": {"<hash>": {"name": …}}}`, `path: "$.torrents[*]"`).
   */
  select?: string;
}

/** JSONPath (jsonpath-plus) into a JSON body. */
export interface JsonExtractor extends ExtractorBase, RecordWhere {
  from: 'json';
  path: string;
}

/** Field of an object built from each element matched by a CSS extractor with `fields`. */
export interface CssField extends Annotated {
  /**
   * Table rows: the cell under the header with this text (case-insensitive), found on every run,
   * so added or reordered columns don't shift values; `selector` then applies inside that cell.
   */
  column?: string;
  /** Selector relative to the matched element (or to the `column` cell); omitted = the element itself. */
  selector?: string;
  /** Attribute to read; omitted = trimmed text; "html" = inner HTML. */
  attr?: string;
  /** Selector of descendants whose text the value leaves out (a page's table of contents inside its text). */
  except?: string;
  type?: ValueType;
  /**
   * Regular expression applied to the text (or attribute) read; its first group (else the whole
   * match) is the value. For values that share an element with their label ("Status: open").
   */
  pattern?: string;
  /** Default true. */
  required?: boolean;
  /** Value when nothing matched and required is false (default null): `false` for an unchecked box. */
  default?: unknown;
  /**
   * A list's records: a cell left blank because it repeats the record above (Nagios names a host
   * once, on its first service's row) takes the value of the closest record above that has one.
   */
  fill_down?: boolean;
}

/** CSS selector (cheerio) into an HTML body (or a browser page's DOM). */
export interface CssExtractor extends ExtractorBase, RecordWhere {
  from: 'css';
  selector: string;
  attr?: string;
  /** Build one object per matched element instead of a string. */
  fields?: Record<string, CssField>;
  /**
   * With `fields` and `all`: a matched row whose `fill_down` fields hold something and whose other
   * fields read blank or nothing heads the rows below it (a journal's transaction row above its
   * postings): its values fill down, and it is not a record itself.
   */
  headings?: boolean;
}

/** The same selectors and fields over an XML document (parsed as XML: names are case-sensitive and
 * keep their prefix, written `d\\:href` in a selector). A feed, a WebDAV multistatus, a SOAP answer. */
export interface XmlExtractor extends ExtractorBase, RecordWhere {
  from: 'xml';
  selector: string;
  attr?: string;
  fields?: Record<string, CssField>;
  headings?: boolean;
}

/** Regular expression on the body text. */
export interface RegexExtractor extends ExtractorBase {
  from: 'regex';
  pattern: string;
  flags?: string;
  /** Capture group number or name; default 1 when the pattern has groups, else the whole match. */
  group?: number | string;
}

/**
 * Calls of one function in JavaScript text — an AJAX answer that is code for the page to run, a
 * JSONP answer, a page's inline script — read as data: each call's arguments, parsed as JSON (a call
 * whose arguments are not all JSON literals is skipped; nothing is evaluated).
 */
export interface CallsExtractor extends ExtractorBase {
  from: 'calls';
  /** The function as the text names it (`this.add_message_row`, `callback`). */
  call: string;
  /** JSONPath to the string of a JSON body that holds the code; omitted = the body text. */
  in?: string;
  /** One object per call; omitted = each call's argument list. */
  fields?: Record<string, CallField>;
}

/** Field of an object built from one call's arguments. */
export interface CallField extends Annotated {
  /** The argument (0 = the first). */
  arg: number;
  /** A key of that argument, when it is an object. */
  key?: string;
  /** The value is HTML: its text is read. */
  text?: boolean;
  type?: ValueType;
  /** Default true. */
  required?: boolean;
  default?: unknown;
}

export interface HeaderExtractor extends ExtractorBase {
  from: 'header';
  name: string;
}

export interface CookieExtractor extends ExtractorBase {
  from: 'cookie';
  name: string;
}

/** Status code, final URL or raw body text of the response (or page URL / text in a browser). */
export interface MetaExtractor extends ExtractorBase {
  from: 'status' | 'url' | 'body';
}

export type Extractor =
  | JsonExtractor
  | CssExtractor
  | XmlExtractor
  | RegexExtractor
  | CallsExtractor
  | HeaderExtractor
  | CookieExtractor
  | MetaExtractor;

// ---------------------------------------------------------------- http engine

/** HTTP methods a step may use: the usual ones and WebDAV's (CalDAV/CardDAV servers, file stores). */
export const HTTP_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'MKCALENDAR',
  'REPORT',
  'SEARCH',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A cookie name an http step's `cookies` or a script's `ctx.http.setCookie` may set: an RFC 6265
 * token (no separators), at most 100 characters. */
export const COOKIE_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$";

export interface MultipartPart {
  name: Template;
  /** The part's content (text, templated). */
  value?: Template;
  /**
   * The part's content is an uploaded file: a template giving its id (`{{args.document}}`, an
   * argument of format `file-id`). The file's name and content type are sent unless
   * `filename` / `content_type` say otherwise. Exclusive with `value`.
   */
  file?: Template;
  /** Makes it a file part with this filename (content from `value`, or `file`'s bytes). */
  filename?: Template;
  content_type?: string;
}

/** Exactly one of json, form, multipart, text or file. */
export interface HttpBody {
  json?: JsonTemplate;
  form?: Record<string, Template>;
  multipart?: MultipartPart[];
  text?: Template;
  /** The body is an uploaded file's bytes (a raw PUT/POST upload): a template giving its id. */
  file?: Template;
  /** Content type of a `text` body (default text/plain), a `json` body (default application/json:
   * a page may post JSON under another type) or a `file` body (default: the file's). */
  content_type?: string;
}

/** Maps a response to a RunError explicitly, before the engine's default rules. */
export interface ErrorRule extends Annotated {
  when: Matcher;
  error: RunErrorType;
  message: string;
  retryable?: boolean | null;
}

/** Repeats a step, concatenating its `all` extracts, until a stop condition. */
export interface Pagination extends Annotated {
  /** page: increment a query parameter; cursor: pass a value from the last response; next_url: follow a URL. */
  mode: 'page' | 'cursor' | 'next_url';
  /** Query parameter set on every page (page and cursor modes); without it the request reads
   * `{{page.number}}` / `{{page.cursor}}` itself (a JSON body's page or cursor field). */
  param?: string;
  /** First page number (page mode, default 1). */
  start?: number;
  /** What the parameter grows by per page (page mode, default 1): an offset grows by the page size. */
  step?: number;
  /** The next cursor or URL, extracted from each response (cursor and next_url modes); null/empty stops. */
  next?: Extractor;
  /** Stop when this extract (an `all` one) came back empty. */
  stop_when_empty?: string;
  /** Stop when this extract is false / falsy (e.g. `has_more`). */
  stop_when_false?: string;
  /** Hard stop; default 100. */
  max_pages?: number;
  /** Stop once this many items were collected in `stop_when_empty`'s extract (template, e.g. "{{args.max_results}}"). */
  max_items?: Template | number;
  /**
   * Pages are read until the step's `where` extractors find the record the run names, and no
   * further: a list whose named record may sit on a later page. Nothing is collected across pages;
   * a page past the end (an empty list, or a page already read) ends the search, and then the
   * record is `invalid_input` (`not_found`) as on one page.
   */
  until_found?: boolean;
}

export interface HttpStep extends Annotated {
  /** Unique within the definition; named in logs and errors. */
  id: string;
  /** Skip the step unless this template is truthy. */
  when?: Template;
  method?: HttpMethod;
  /** Absolute, or relative to base_url. */
  url: Template;
  headers?: Record<string, Template>;
  /**
   * Cookies the page's script set (`document.cookie`) before this request, from values it read
   * (a token from a sign-in's JSON answer): stored in the run's jar for the step's URL, then sent
   * with it and every later request as the jar sends cookies.
   */
  cookies?: Record<string, Template>;
  query?: Record<string, Template>;
  body?: HttpBody;
  /** Default true (up to 10 redirects; cookies are stored on every hop). */
  follow_redirects?: boolean;
  /**
   * A response header that names the next page when a 2xx answer has no body (Icinga Web's
   * `x-icinga-redirect`, htmx's `hx-redirect`): the page's script goes there, and so does the run,
   * as a GET on the same origin (the value may be percent-encoded once), like a 303.
   */
  follow_header?: string;
  /** Accepted statuses; default any 2xx (after redirects). */
  expect_status?: number[];
  /**
   * The site answered the recorded request with a redirect (a form posted, then the page after it,
   * as sites answer a save they took). An answer here that is not one, a page with the form again,
   * is the site refusing the request: the run fails `invalid_input` with the page's message.
   */
  expect_redirect?: boolean;
  error_rules?: ErrorRule[];
  /** Values from the response, stored as vars.<name>. */
  extract?: Record<string, Extractor>;
  paginate?: Pagination;
}

/** Establishes a session from a login secret; re-run once when a later step finds itself logged out. */
export interface HttpLogin extends Annotated {
  /** Name of a required_secrets slot of type login. */
  slot: string;
  steps: HttpStep[];
}

export interface Detection {
  /** The site's login page (a logged-out response). Default: none (401/403 still trigger re-login). */
  login_page?: Matcher[];
  /** Anti-bot challenges. Defaults cover common captcha/challenge pages. */
  anti_bot?: Matcher[];
}

export interface HttpDefinition extends DefinitionBase {
  engine: 'http';
  base_url?: Template;
  /** Headers sent with every request (steps may override). */
  headers?: Record<string, Template>;
  login?: HttpLogin;
  /**
   * A login slot that answers the site's HTTP Basic challenge (a 401 with `WWW-Authenticate: Basic`
   * from base_url's origin), as a browser's sign-in dialog does: the request is sent again with the
   * slot's credentials, which then go with every later request to that origin.
   */
  basic_auth?: string;
  detect?: Detection;
  steps: HttpStep[];
  /** The run's result; validated against the connector's output_schema. */
  result: JsonTemplate;
}

// ---------------------------------------------------------------- browser engine

interface BrowserStepBase extends Annotated {
  id?: string;
  when?: Template;
  /** Per-step timeout in ms (default 15000). */
  timeout_ms?: number;
}

export interface NavigateStep extends BrowserStepBase {
  action: 'navigate';
  url: Template;
}
export interface ClickStep extends BrowserStepBase {
  action: 'click';
  selector: string;
}
export interface TypeStep extends BrowserStepBase {
  action: 'type';
  selector: string;
  text: Template;
}
export interface SelectStep extends BrowserStepBase {
  action: 'select';
  selector: string;
  value: Template;
}
export interface PressStep extends BrowserStepBase {
  action: 'press';
  key: string;
  selector?: string;
}
/** Waits for a selector state, a URL, the load state, or a fixed time (in that order of preference). */
export interface WaitStep extends BrowserStepBase {
  action: 'wait';
  selector?: string;
  state?: 'attached' | 'detached' | 'visible' | 'hidden';
  url?: string;
  load?: 'load' | 'domcontentloaded' | 'networkidle';
  ms?: number;
}
/** Extracts from the current page (DOM as HTML, URL, text) with the same extractors as http. */
export interface ExtractStep extends BrowserStepBase {
  action: 'extract';
  values: Record<string, Extractor>;
}
/** Repeats `steps` while `while_selector` is present (e.g. a "next page" link), at most max_iterations. */
export interface LoopStep extends BrowserStepBase {
  action: 'loop';
  steps: BrowserStep[];
  while_selector?: string;
  max_iterations?: number;
}

export type BrowserStep = NavigateStep | ClickStep | TypeStep | SelectStep | PressStep | WaitStep | ExtractStep | LoopStep;

export interface BrowserLogin extends Annotated {
  slot: string;
  steps: BrowserStep[];
}

export interface BrowserDefinition extends DefinitionBase {
  engine: 'browser';
  login?: BrowserLogin;
  /**
   * A login slot the browser answers the site's HTTP Basic or Digest challenge with (its sign-in
   * dialog), for the origin of the first `navigate` step only.
   */
  basic_auth?: string;
  detect?: Detection;
  steps: BrowserStep[];
  result: JsonTemplate;
}

// ---------------------------------------------------------------- script engine

/**
 * An ES module whose default export is `async (ctx) => result`. ctx: args, secrets, http, page
 * (when `browser` is true), log, files, totp(slot), fail(type, message, {retryable, details}).
 * See docs/connector-definition.md for the full context API.
 */
export interface ScriptDefinition extends DefinitionBase {
  engine: 'script';
  source: string;
  /** Give the script a browser page (ctx.page). */
  browser?: boolean;
}

export type ConnectorDefinition = HttpDefinition | BrowserDefinition | ScriptDefinition;

/** Secret slot as published with the connector (the API's SecretSlotDefinition). */
export interface SecretSlot {
  name: string;
  type: 'login' | 'string';
  supports_totp?: boolean;
  description?: string | null;
}

/** Where a stored definition's recording came from, read from its meta without trusting its shape. */
export function recordingSourceOf(definition: unknown): { capture_session_id: string } | { recording_file_id: string } | null {
  const meta = definition && typeof definition === 'object' ? (definition as { meta?: unknown }).meta : undefined;
  if (!meta || typeof meta !== 'object') return null;
  const m = meta as DefinitionMeta;
  if (typeof m.capture_session_id === 'string') return { capture_session_id: m.capture_session_id };
  if (typeof m.recording_file_id === 'string') return { recording_file_id: m.recording_file_id };
  return null;
}
