// A form generated from a connector's input_schema (an object schema): strings, numbers,
// integers, booleans, enums and arrays of those, with defaults, required marks and descriptions;
// an argument of format file-id gets a file chooser that uploads the file and fills in its id.
// It checks nothing itself: the API's 422 messages are shown at the fields they name.
import type { JSX, TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { uploadFile } from './upload.js';

export interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  title?: string;
  examples?: unknown[];
  items?: FieldSchema;
  format?: string;
}
export interface ObjectSchema {
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

const baseType = (s: FieldSchema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type) ?? 'string';

/** Text the inputs start with: the default (or, with `examples`, the first example), else empty. */
export function initialValues(schema: ObjectSchema, examples = false): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    const t = baseType(s);
    const v = examples && s.examples?.length ? s.examples[0] : s.default;
    if (t === 'boolean') out[k] = v === true;
    else if (t === 'array') out[k] = Array.isArray(v) ? v.join('\n') : '';
    else out[k] = v === undefined || v === null ? '' : String(v);
  }
  return out;
}

const toScalar = (text: string, t: string): unknown => {
  if ((t === 'number' || t === 'integer') && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  return text; // a non-number stays text: the API says what is wrong with it
};

/** The arguments object: empty optional fields are left out (the API applies defaults). */
export function collectArguments(schema: ObjectSchema, values: Record<string, string | boolean>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    const v = values[k];
    const t = baseType(s);
    if (t === 'boolean') {
      out[k] = v === true;
      continue;
    }
    const text = typeof v === 'string' ? v : '';
    if (t === 'array') {
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      if (lines.length || schema.required?.includes(k)) out[k] = lines.map((l) => toScalar(l, baseType(s.items ?? {})));
      continue;
    }
    if (text === '' && !schema.required?.includes(k)) continue;
    if (s.enum) {
      const hit = s.enum.find((e) => String(e) === text);
      out[k] = hit === undefined ? text : hit;
      continue;
    }
    out[k] = toScalar(text, t);
  }
  return out;
}

export function SchemaForm(props: {
  schema: ObjectSchema;
  values: Record<string, string | boolean>;
  errors: Record<string, string>;
  onChange: (name: string, v: string | boolean) => void;
  idPrefix: string;
}) {
  const entries = Object.entries(props.schema.properties ?? {});
  if (!entries.length) return <p class="muted">This connector takes no arguments.</p>;
  return (
    <>
      {entries.map(([name, s]) => {
        const id = `${props.idPrefix}-${name}`;
        const required = props.schema.required?.includes(name) ?? false;
        const err = props.errors[name];
        const t = baseType(s);
        const described = [s.description || s.examples ? `${id}-help` : '', err ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
        const common = {
          id,
          name,
          'aria-invalid': err ? ('true' as const) : undefined,
          'aria-describedby': described,
          'aria-required': required ? ('true' as const) : undefined,
        };
        let input: JSX.Element;
        if (t === 'boolean')
          input = (
            <input
              {...common}
              type="checkbox"
              checked={props.values[name] === true}
              onChange={(e) => props.onChange(name, e.currentTarget.checked)}
            />
          );
        else if (s.enum)
          input = (
            <select {...common} value={String(props.values[name] ?? '')} onChange={(e) => props.onChange(name, e.currentTarget.value)}>
              {!required && <option value="">(not set)</option>}
              {required && props.values[name] === '' && <option value="">Choose…</option>}
              {s.enum.map((o) => (
                <option key={String(o)} value={String(o)}>
                  {String(o)}
                </option>
              ))}
            </select>
          );
        else if (t === 'array')
          input = (
            <textarea
              {...common}
              rows={3}
              value={String(props.values[name] ?? '')}
              onInput={(e) => props.onChange(name, e.currentTarget.value)}
            />
          );
        else if (s.format === 'file-id')
          input = <FileIdInput common={common} value={String(props.values[name] ?? '')} onChange={(v) => props.onChange(name, v)} />;
        else
          input = (
            <input
              {...common}
              type="text"
              inputMode={t === 'number' || t === 'integer' ? 'decimal' : undefined}
              value={String(props.values[name] ?? '')}
              onInput={(e) => props.onChange(name, e.currentTarget.value)}
            />
          );
        return (
          <div class={`field${t === 'boolean' ? ' check' : ''}${err ? ' invalid' : ''}`} key={name}>
            <label for={id}>
              {s.title ?? name}
              {required ? <span class="req"> (required)</span> : null}
              <span class="type"> {t === 'array' ? `list of ${baseType(s.items ?? {})}, one per line` : t}</span>
            </label>
            {input}
            {(s.description || s.examples) && (
              <p class="help" id={`${id}-help`}>
                {s.description}
                {s.examples?.length ? ` Example: ${s.examples.map((x) => JSON.stringify(x)).join(', ')}` : ''}
              </p>
            )}
            {err && (
              <p class="field-error" id={`${id}-err`}>
                {err}
              </p>
            )}
          </div>
        );
      })}
    </>
  );
}

/** A file argument: the id of one of the caller's uploads, typed in or filled by choosing a file here. */
function FileIdInput(props: {
  common: {
    id: string;
    name: string;
    'aria-invalid'?: 'true';
    'aria-describedby'?: string;
    'aria-required'?: 'true';
  };
  value: string;
  onChange: (v: string) => void;
}) {
  const [state, setState] = useState<{ text: string; bad?: boolean } | null>(null);
  const choose = async (e: TargetedEvent<HTMLInputElement>) => {
    const file = e.currentTarget.files?.[0];
    if (!file) return;
    setState({ text: `Uploading ${file.name}…` });
    try {
      const done = await uploadFile(file, (p) => setState({ text: `Uploading ${file.name}: ${Math.round(p * 100)} %` }));
      props.onChange(done.file_id);
      setState({ text: `Uploaded ${done.name} (${done.size_bytes} bytes)` });
    } catch (err) {
      setState({ text: `The upload failed: ${(err as Error).message}`, bad: true });
    }
  };
  const chooser = `${props.common.id}-file`;
  return (
    <span class="file-arg">
      <input
        {...props.common}
        type="text"
        placeholder="file id"
        value={props.value}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
      <label for={chooser}>or upload a file</label>
      <input id={chooser} type="file" onChange={choose} />
      {state && (
        <span class={state.bad ? 'bad' : 'muted'} role="status">
          {state.text}
        </span>
      )}
    </span>
  );
}
