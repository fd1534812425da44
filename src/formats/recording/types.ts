// The stored recording of a capture session: HAR 1.2 plus extension fields (names start with
// "_", as HAR 1.2 allows). docs/recording-format.md is the prose description of these types;
// the synthesizer (issue 5) consumes exactly this. Version bumps only for incompatible changes.
import type { SecretEncoding } from '../../lib/secret-forms.js';

export const RECORDING_FORMAT_VERSION = 1;

/** Placeholder that replaces a pasted secret value wherever it occurred (all encodings). */
export const secretPlaceholder = (secretId: string, field: SecretField) => `{{secret:${secretId}:${field}}}`;
/** Matches a placeholder; groups: secret id, field. */
export const SECRET_PLACEHOLDER_RE = /\{\{secret:([0-9a-zA-Z-]+):(username|password|totp)\}\}/g;

export type SecretField = 'username' | 'password' | 'totp';

/** How a redacted occurrence was encoded in the place it was found (one list: src/lib/secret-forms.ts). */
export type { SecretEncoding } from '../../lib/secret-forms.js';

export interface Har {
  log: HarLog;
}

export interface HarLog {
  version: '1.2';
  creator: { name: string; version: string };
  browser: { name: string; version: string };
  pages: HarPage[];
  entries: HarEntry[];
  /** Everything that is not plain HAR: the action log, secret markers, session facts. */
  _capture: CaptureExtension;
}

export interface HarPage {
  /** "page_1", "page_2", … one per tab/popup, in the order they opened. */
  id: string;
  startedDateTime: string;
  title: string;
  pageTimings: { onContentLoad?: number; onLoad?: number };
  /** Id of the page that opened this one (popup / target=_blank), else null. */
  _opener: string | null;
}

export interface CaptureExtension {
  format_version: typeof RECORDING_FORMAT_VERSION;
  session_id: string;
  started_at: string;
  ended_at: string;
  /** The start_url the session was created with (null when none). */
  start_url: string | null;
  use_proxy: boolean;
  /** Names and domains of the cookies the session was created with; values are not kept. */
  initial_cookies: { name: string; domain: string | null; path: string | null }[];
  viewport: { width: number; height: number };
  /** Every action of the person, ordered by `seq` (= time order). */
  actions: Action[];
  /** One entry per paste: which secret/field went where. */
  secrets: SecretUse[];
  /** Limits that shaped the recording. */
  limits: { max_body_bytes: number };
  /** WebSocket frames (text frames up to max_body_bytes; binary as size + hash). */
  websockets: WebSocketLog[];
}

// ---------------------------------------------------------------------------------------------
// Actions

export type ActionType =
  | 'navigate' // the top-level document of a page changed URL
  | 'click' // mouse click (also double-click: detail = 2)
  | 'fill' // final value of a text-like field after an editing episode
  | 'select' // <select> value(s) chosen
  | 'check' // checkbox / radio toggled
  | 'submit' // a form was submitted (by button, Enter or script)
  | 'key' // a non-text key that usually triggers something (Enter, Escape, Tab, arrows)
  | 'paste' // a secret field pasted through POST /capture_sessions/{id}/paste
  | 'tab' // a new page (popup / new tab) opened, or the live view switched pages
  | 'pick' // the person pointed at a result in the live view's pick mode (nothing reached the page)
  | 'upload'; // the person chose file(s) for the page's file chooser through the live view

export interface ActionBase {
  /** "a1", "a2", … unique in the recording. */
  id: string;
  /** Position in the action log, 1-based, equal to time order. */
  seq: number;
  type: ActionType;
  /** Wall clock (ISO 8601) and milliseconds since the session started. */
  time: string;
  t_ms: number;
  /** Page (HarPage.id) the action happened in. */
  page: string;
  /** URL of the page's document at the time of the action. */
  url: string;
  /** The element acted on, if any. */
  target: ElementInfo | null;
}

export interface NavigateAction extends ActionBase {
  type: 'navigate';
  /** The new URL. */
  to: string;
  /**
   * typed: entered in the live view's URL bar; back/forward/reload: its buttons; start: start_url;
   * page: caused by the page itself (link, form submission, redirect, script).
   */
  cause: 'typed' | 'back' | 'forward' | 'reload' | 'start' | 'page';
}

export interface ClickAction extends ActionBase {
  type: 'click';
  /** 1 = click, 2 = double click, 0 = activated by keyboard (Enter/Space, implicit form submission). */
  detail: number;
  button: 'left' | 'middle' | 'right';
  /** Viewport coordinates in CSS pixels. */
  x: number;
  y: number;
}

export interface FillAction extends ActionBase {
  type: 'fill';
  /**
   * Final value of the field after the editing episode (keystrokes, corrections and paste
   * resolved). Pasted secrets appear as their placeholder; `secret` then says which.
   */
  value: string;
  /** Set when the value contains a pasted secret placeholder (the whole value or part of it). */
  secret: SecretRef | null;
}

export interface SelectAction extends ActionBase {
  type: 'select';
  /** Selected option values (several for <select multiple>). */
  values: string[];
  /** Visible texts of the selected options, same order. */
  labels: string[];
}

export interface CheckAction extends ActionBase {
  type: 'check';
  checked: boolean;
  /** The input's value attribute ("on" when absent). */
  value: string;
}

export interface SubmitAction extends ActionBase {
  type: 'submit';
  /** The form element (target is the form); its fields' final values as the browser sends them. */
  form: FormInfo;
  /** Name/value pairs the form submitted (secrets as placeholders; files by name only). */
  fields: { name: string; value: string; type: string }[];
  /** The button that submitted it, if any. */
  submitter: ElementInfo | null;
}

export interface KeyAction extends ActionBase {
  type: 'key';
  /** KeyboardEvent.key, e.g. "Enter", "Escape", "Tab", "ArrowDown". */
  key: string;
  modifiers: ('Alt' | 'Control' | 'Meta' | 'Shift')[];
}

export interface PasteAction extends ActionBase {
  type: 'paste';
  secret: SecretRef;
}

export interface TabAction extends ActionBase {
  type: 'tab';
  /** opened: a new page appeared; closed: it went away; switched: the live view now shows it. */
  event: 'opened' | 'closed' | 'switched';
  /** The page the event is about (HarPage.id). */
  tab: string;
}

/**
 * The person pointed at what they want back (live view pick mode, docs/live-view.md). `target` is
 * the picked element (the whole record when `scope` is `record`); nothing was dispatched to the page.
 */
export interface PickAction extends ActionBase {
  type: 'pick';
  /** value: one element (a field); record: a whole row / list item / card (shift-click, or the record itself clicked). */
  scope: 'value' | 'record';
  /** The text seen (innerText, or a field's value), whitespace-collapsed, ≤ 500 chars; null for password / one-time-code fields. */
  text: string | null;
  /** Lower-case tag of the picked element. */
  tag: string;
  /** The repeated structure around the element (table row, list item, sibling cards of one signature), if any. */
  record: PickRecord | null;
  /** The element holding the records (the table for rows). */
  list: { css: string; count: number } | null;
  /** Where it was on the viewport (CSS pixels). */
  box: { x: number; y: number; width: number; height: number };
}

export interface PickRecord {
  /** Structural CSS path of the record element, and its robust selectors. */
  css: string;
  selectors: Selector[];
  /** 0-based position among the list's records. */
  index: number;
  /** The record's value texts: leaf texts that are not the same in every record (template labels), ≤ 12. */
  values: string[];
}

/**
 * The person answered the page's file chooser from the live view (an `<input type=file>` or a
 * script's picker): the files the page got, with their content (base64, each up to
 * `limits.max_body_bytes`; a larger one has its size and digest only). A browser's recording of the
 * request that sends them holds the form's parts but not the files' content: synthesis finds it here.
 */
export interface UploadAction extends ActionBase {
  type: 'upload';
  /** `data`: the content as base64, left out over the body limit or, with `withheld` saying why,
   * when it holds a value the person pasted as a secret. */
  files: { name: string; content_type: string; size: number; sha256: string; data?: string; withheld?: string }[];
}

export type Action =
  | UploadAction
  | PickAction
  | NavigateAction
  | ClickAction
  | FillAction
  | SelectAction
  | CheckAction
  | SubmitAction
  | KeyAction
  | PasteAction
  | TabAction;

export interface SecretRef {
  secret_id: string;
  field: SecretField;
}

/** A description of an element, good enough to find it again on a later visit. */
export interface ElementInfo {
  tag: string;
  /** input type (text, password, email, …) or null. */
  type: string | null;
  id: string | null;
  name: string | null;
  /** Text of the associated <label> (for=, wrapping label, aria-labelledby, aria-label). */
  label: string | null;
  placeholder: string | null;
  autocomplete: string | null;
  /** A number or range input's `step` attribute (null: none, the default step of 1). */
  step?: string | null;
  /** Explicit role attribute, else the implicit ARIA role of the tag. */
  role: string | null;
  /** Accessible name (aria-label, label, text content, value of a button, alt, title). */
  accessible_name: string | null;
  /** Visible text, trimmed and whitespace-collapsed, at most 200 characters. */
  text: string | null;
  /** data-testid / data-test-id / data-test / data-qa / data-cy, whichever exists. */
  test_id: string | null;
  href: string | null;
  /** Ordered, most robust first. `unique` = matched exactly one element when recorded. */
  selectors: Selector[];
  /** The form the element belongs to, if any. */
  form: FormInfo | null;
}

export interface Selector {
  /**
   * testid: the data-* test id value; role: `role=<role>[name="<accessible name>"]`;
   * label: the label text; placeholder; text: visible text; name: `[name="…"]` CSS;
   * id: `#id` CSS; css: a structural CSS path from the nearest id'd ancestor.
   */
  kind: 'testid' | 'role' | 'label' | 'placeholder' | 'text' | 'name' | 'id' | 'css';
  value: string;
  /** Playwright-style engine string ready to use, e.g. `[data-testid="login-submit"]`, `role=button[name="Sign in"]`, `text="Sign in"`, `css=#username`. */
  playwright: string;
  unique: boolean;
}

export interface FormInfo {
  id: string | null;
  name: string | null;
  /** Absolute URL the form submits to. */
  action: string;
  method: string;
  enctype: string;
  /** CSS selector of the form. */
  css: string;
}

// ---------------------------------------------------------------------------------------------
// Secrets

export interface SecretUse {
  secret_id: string;
  field: SecretField;
  /** The paste action that put the value in. */
  action_id: string;
  /** The field it was pasted into (null if nothing was focused). */
  target: ElementInfo | null;
  /** The placeholder that replaced the value everywhere. */
  placeholder: string;
  /** Entries (HarEntry._id) whose request or response carried the value. */
  entries: string[];
}

/** Where an entry carried a secret: one marker per (secret, field, location). */
export interface SecretMarker extends SecretRef {
  /**
   * request.url | request.headers.<name> | request.cookies.<name> | request.postData |
   * response.headers.<name> | response.cookies.<name> | response.content | response.redirectURL
   */
  location: string;
  encodings: SecretEncoding[];
  /** The field the value was pasted into (copied from the paste; null when unknown). */
  field_name: string | null;
}

// ---------------------------------------------------------------------------------------------
// HAR entries (standard HAR 1.2 fields, plus extensions)

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarCookie {
  name: string;
  value: string;
  path?: string;
  domain?: string;
  expires?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: string;
}

export interface HarPostParam {
  name: string;
  value?: string;
  fileName?: string;
  contentType?: string;
  /** Multipart file parts: size and sha256 of the part's bytes (value omitted when binary). */
  _size?: number;
  _sha256?: string;
}

export interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  cookies: HarCookie[];
  headers: HarNameValue[];
  queryString: HarNameValue[];
  postData?: {
    mimeType: string;
    /** The body as text (UTF-8). Absent for binary bodies (see _size/_sha256). */
    text?: string;
    /** Parsed form (urlencoded or multipart) parameters. */
    params?: HarPostParam[];
    /** Size and hash of the whole body; absent when it is `_from_submit`. */
    _size?: number;
    _sha256?: string;
    /** true when text was cut at limits.max_body_bytes. */
    _truncated?: boolean;
    /** The body was not recorded (a form with a file, ended by a redirect): `params` are the
     * fields the page's submit event saw, in the `submit` action of this id. */
    _from_submit?: string;
  };
  headersSize: number;
  bodySize: number;
}

export interface HarContent {
  size: number;
  mimeType: string;
  /** Text bodies (text/*, JSON, XML, JS, forms…) up to max_body_bytes. */
  text?: string;
  /** Only "base64" is ever used, for small non-text bodies we chose to keep (none by default). */
  encoding?: 'base64';
  /** sha256 (hex) of the whole decoded body, when the body was available. */
  _sha256?: string;
  /** Why text is missing or partial. */
  _omitted?: 'binary' | 'truncated' | 'unavailable' | 'none';
}

export interface HarResponse {
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: HarCookie[];
  headers: HarNameValue[];
  content: HarContent;
  redirectURL: string;
  headersSize: number;
  bodySize: number;
}

export interface HarEntry {
  pageref: string;
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  serverIPAddress?: string;
  connection?: string;

  /** "e1", "e2", … unique in the recording (entries are sorted by startedDateTime). */
  _id: string;
  /** CDP request id; redirect hops share it (each hop is its own entry). */
  _request_id: string;
  /** CDP resource type: Document, XHR, Fetch, Script, Stylesheet, Image, Font, Media, Other, … */
  _resource_type: string;
  /** What started the request: parser, script, redirect, preflight, other; and the URL of the initiator. */
  _initiator: { type: string; url: string | null };
  /** Entry this one is a redirect hop from (null when not a redirect target). */
  _redirected_from: string | null;
  /** The action (Action.id) that most recently preceded the request start; null before any. */
  _action_id: string | null;
  /** Network error text when the request failed (then response.status is 0). */
  _error: string | null;
  /** Where pasted secrets travelled in this entry (values replaced by placeholders). */
  _secrets: SecretMarker[];
  /** True for the top-level document of a page. */
  _is_navigation: boolean;
}

export interface WebSocketLog {
  url: string;
  page: string;
  opened_at: string;
  frames: { time: string; direction: 'send' | 'receive'; opcode: number; data?: string; size: number; sha256?: string }[];
}
