// Connectors: publish (version 1), revise (version + 1), read, rename, delete. A definition is
// validated before anything is written; every version's schemas and definition stay readable so
// runs pinned to an old version keep working after a revision.
import type { ConnectorVersion } from '../../runtime/ports.js';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ConnectorsTable, ConnectorVersionsTable, Database } from '../../adapters/db/schema.js';
import { InvalidInput, notFound, type Problem } from '../../lib/errors.js';
import { afterCursor, decodeCursor, toPage, type Page } from '../../lib/cursor.js';
import { makeAjv } from '../../lib/json-schema.js';
import { isUuid, newId, nowIso } from '../../lib/ids.js';
import { prepared } from '../../adapters/db/prepared.js';
import { validateDefinition } from '../../formats/definition/validate.js';
import { recordingSourceOf, type ConnectorDefinition, type SecretSlot } from '../../formats/definition/types.js';
import type { ConnectorView, ListConnectorsParams, PublishInput } from './schemas.js';
import type { SynthesisService } from './synthesis.js';

type Head = Selectable<ConnectorsTable>;
type VersionRow = Selectable<ConnectorVersionsTable>;

/** A published version as the runtime needs it. */
export type { ConnectorVersion };

const schemaAjv = makeAjv();

/** Lower-case host of a website given as a URL or a bare domain; null when it has none. */
export function hostOf(website: string | null | undefined): string | null {
  if (!website) return null;
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(website) ? website : `https://${website}`);
    return u.hostname.replace(/\.$/, '').toLowerCase() || null;
  } catch {
    return null;
  }
}

function view(head: Head, v: VersionRow): ConnectorView {
  return {
    id: head.id,
    display_name: head.display_name,
    purpose: v.purpose,
    website: v.website,
    input_schema: JSON.parse(v.input_schema),
    output_schema: JSON.parse(v.output_schema),
    required_secrets: JSON.parse(v.required_secrets),
    version: v.version,
    created_at: v.created_at,
  };
}

function checkJsonSchema(schema: unknown, field: string, errors: Problem[]): void {
  try {
    schemaAjv.compile(schema as object);
  } catch (e) {
    errors.push({ loc: ['body', field], msg: `Value error, not a valid JSON Schema: ${(e as Error).message}`, type: 'value_error' });
    return;
  }
  if (field === 'input_schema') {
    const t = (schema as { type?: unknown }).type;
    if (t !== undefined && t !== 'object')
      errors.push({
        loc: ['body', field],
        msg: "Value error, arguments are an object: input_schema must have type 'object'",
        type: 'value_error',
        input: t,
      });
  }
}

export class ConnectorsService {
  /** Set by services.ts once the synthesizer's dependencies exist (recordings, secrets, sandbox). */
  synthesis: SynthesisService | null = null;

  /** Every run's create reads it: compiled once (see adapters/db/prepared.ts). */
  private readonly versionHead;

  constructor(private readonly deps: { db: Kysely<Database> }) {
    const db = deps.db;
    this.versionHead = prepared<Database, { current_version: number; deleted_at: string | null }, [string, string]>(db, (p) =>
      db.selectFrom('connectors').select(['current_version', 'deleted_at']).where('id', '=', p(0)).where('user_id', '=', p(1)),
    );
  }

  /** A body naming a recording becomes a body with a synthesized definition (or a 422). */
  private async withSynthesis(
    userId: string,
    body: PublishInput,
    previous: { capture_session_id?: string; recording_file_id?: string } | null,
    isNew: boolean,
  ): Promise<PublishInput> {
    if (body.capture_session_id === undefined && body.recording_file_id === undefined) return body;
    if (!this.synthesis) {
      throw new InvalidInput([
        {
          loc: ['body', body.capture_session_id !== undefined ? 'capture_session_id' : 'recording_file_id'],
          msg: 'Value error, synthesis is not available on this server',
          type: 'value_error',
        },
      ]);
    }
    const s = await this.synthesis.build(userId, body, previous);
    const { capture_session_id: _c, recording_file_id: _r, ...rest } = body;
    // A new connector's website defaults to the recorded site (revisions carry theirs over).
    const website = isNew && body.website === undefined ? s.website : body.website;
    return {
      ...rest,
      ...(website !== undefined ? { website } : {}),
      definition: s.definition as unknown as Record<string, unknown>,
      input_schema: s.input_schema,
      output_schema: s.output_schema,
      required_secrets: s.required_secrets,
    };
  }

  private get db() {
    return this.deps.db;
  }

  /**
   * Checks a publish/revise body; returns the normalized parts to store. A synthesized definition
   * was validated by the synthesizer against the same rules (validateDefinition): not again here.
   */
  private check(body: PublishInput, requireMeta: boolean, synthesized = false) {
    const errors: Problem[] = [];
    if (requireMeta)
      for (const f of ['display_name', 'purpose'] as const)
        if (body[f] === undefined) errors.push({ loc: ['body', f], msg: 'Field required', type: 'missing' });
    if (!errors.length) {
      for (const f of ['definition', 'input_schema', 'output_schema'] as const)
        if (body[f] === undefined) errors.push({ loc: ['body', f], msg: 'Field required', type: 'missing', input: null });
    }
    const slots: SecretSlot[] = (body.required_secrets ?? []).map((s) => ({
      name: s.name,
      type: s.type,
      supports_totp: s.supports_totp ?? false,
      description: s.description ?? null,
    }));
    const seen = new Set<string>();
    slots.forEach((s, i) => {
      if (seen.has(s.name))
        errors.push({
          loc: ['body', 'required_secrets', i, 'name'],
          msg: `Value error, duplicate slot name '${s.name}'`,
          type: 'value_error',
          input: s.name,
        });
      seen.add(s.name);
      if (s.type === 'string' && s.supports_totp)
        errors.push({
          loc: ['body', 'required_secrets', i, 'supports_totp'],
          msg: 'Value error, supports_totp applies to login slots only',
          type: 'value_error',
          input: true,
        });
    });
    if (body.website) {
      if (!hostOf(body.website))
        errors.push({
          loc: ['body', 'website'],
          msg: 'Value error, website must be a URL or a domain',
          type: 'value_error',
          input: body.website,
        });
    }
    if (body.input_schema) checkJsonSchema(body.input_schema, 'input_schema', errors);
    if (body.output_schema) checkJsonSchema(body.output_schema, 'output_schema', errors);
    if (body.definition && !synthesized) {
      errors.push(...validateDefinition(body.definition, { inputSchema: body.input_schema, requiredSecrets: slots }));
    }
    if (errors.length) throw new InvalidInput(errors);
    return { slots, definition: body.definition as unknown as ConnectorDefinition };
  }

  private versionRow(
    connectorId: string,
    version: number,
    body: PublishInput,
    slots: SecretSlot[],
    def: ConnectorDefinition,
    now: string,
  ): VersionRow {
    return {
      connector_id: connectorId,
      version,
      purpose: body.purpose!,
      website: body.website ?? null,
      input_schema: JSON.stringify(body.input_schema),
      output_schema: JSON.stringify(body.output_schema),
      required_secrets: JSON.stringify(slots),
      definition: JSON.stringify(def),
      engine: def.engine,
      created_at: now,
    };
  }

  async publish(userId: string, input: PublishInput): Promise<ConnectorView> {
    if (input.display_name === undefined || input.purpose === undefined) this.check(input, true);
    const body = await this.withSynthesis(userId, input, null, true);
    const { slots, definition } = this.check(body, true, body !== input);
    const now = nowIso();
    const head: Head = {
      id: newId(),
      user_id: userId,
      display_name: body.display_name!,
      website_host: hostOf(body.website),
      current_version: 1,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    const v = this.versionRow(head.id, 1, body, slots, definition, now);
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('connectors').values(head).execute();
      await trx.insertInto('connector_versions').values(v).execute();
    });
    return view(head, v);
  }

  /** Publishes version current+1; omitted display_name/purpose/website are carried over. */
  async revise(userId: string, id: string, input: PublishInput): Promise<ConnectorView> {
    const { head, version: cur } = await this.current(userId, id);
    // A second recording of the same flow: the previous version's recording separates constants from dynamic values.
    const previous = recordingSourceOf(JSON.parse(cur.definition));
    const body = await this.withSynthesis(userId, input, previous, false);
    const merged: PublishInput = {
      ...body,
      display_name: body.display_name ?? head.display_name,
      purpose: body.purpose ?? cur.purpose,
      website: body.website !== undefined ? body.website : cur.website,
    };
    const { slots, definition } = this.check(merged, false, body !== input);
    const now = nowIso();
    return this.db.transaction().execute(async (trx) => {
      // Compare-and-set on current_version: two concurrent revisions can't both become version n+1.
      const r = await trx
        .updateTable('connectors')
        .set({
          current_version: head.current_version + 1,
          display_name: merged.display_name!,
          website_host: hostOf(merged.website),
          updated_at: now,
        })
        .where('id', '=', head.id)
        .where('current_version', '=', head.current_version)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1)
        throw new InvalidInput([
          { loc: ['path', 'connector_id'], msg: 'Value error, a concurrent revision was published; retry', type: 'value_error' },
        ]);
      const v = this.versionRow(head.id, head.current_version + 1, merged, slots, definition, now);
      await trx.insertInto('connector_versions').values(v).execute();
      return view({ ...head, display_name: merged.display_name!, current_version: v.version }, v);
    });
  }

  private async head(userId: string, id: string, opts: { deleted?: boolean } = {}): Promise<Head> {
    if (!isUuid(id)) throw notFound('Connector');
    let q = this.db.selectFrom('connectors').selectAll().where('id', '=', id).where('user_id', '=', userId);
    if (!opts.deleted) q = q.where('deleted_at', 'is', null);
    const head = await q.executeTakeFirst();
    if (!head) throw notFound('Connector');
    return head;
  }

  private async versionOf(id: string, version: number): Promise<VersionRow | undefined> {
    return this.db
      .selectFrom('connector_versions')
      .selectAll()
      .where('connector_id', '=', id)
      .where('version', '=', version)
      .executeTakeFirst();
  }

  private async current(userId: string, id: string) {
    const head = await this.head(userId, id);
    const version = (await this.versionOf(id, head.current_version))!;
    return { head, version };
  }

  async get(userId: string, id: string): Promise<ConnectorView> {
    const { head, version } = await this.current(userId, id);
    return view(head, version);
  }

  async list(userId: string, p: ListConnectorsParams): Promise<Page<ConnectorView>> {
    const cursor = decodeCursor(p.cursor, 'created_at', 'desc');
    let q = this.db
      .selectFrom('connectors as c')
      .innerJoin('connector_versions as v', (j) => j.onRef('v.connector_id', '=', 'c.id').onRef('v.version', '=', 'c.current_version'))
      .selectAll('c')
      .select([
        'v.purpose',
        'v.website',
        'v.input_schema',
        'v.output_schema',
        'v.required_secrets',
        'v.definition',
        'v.engine',
        'v.version',
        'v.connector_id',
        'v.created_at as v_created_at',
      ])
      .where('c.user_id', '=', userId)
      .where('c.deleted_at', 'is', null);
    if (p.domain !== undefined) {
      const d = hostOf(p.domain.trim()) ?? p.domain.trim().toLowerCase();
      const escaped = d.replace(/[\\%_]/g, (ch) => `\\${ch}`);
      // The domain itself or a subdomain: a label boundary ('.') before it, so notexample.com never matches example.com.
      const pattern = `%.${escaped}`;
      q = q.where((eb) => eb.or([eb('c.website_host', '=', d), sql<boolean>`c.website_host like ${pattern} escape '\\'`]));
    }
    if (cursor) q = q.where((eb) => afterCursor(eb, 'c.created_at', cursor, 'c.id'));
    const rows = await q
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(p.limit + 1)
      .execute();
    return toPage(
      rows,
      p.limit,
      'created_at',
      'desc',
      (r) => r.created_at,
      (r) => view(r, { ...r, created_at: r.v_created_at } as unknown as VersionRow),
    );
  }

  /** Every live connector of the user at its newest version, oldest connector first, in one query (the MCP tool list). */
  async allCurrent(userId: string): Promise<ConnectorView[]> {
    const rows = await this.db
      .selectFrom('connectors as c')
      .innerJoin('connector_versions as v', (j) => j.onRef('v.connector_id', '=', 'c.id').onRef('v.version', '=', 'c.current_version'))
      .select([
        'c.id',
        'c.display_name',
        'v.purpose',
        'v.website',
        'v.input_schema',
        'v.output_schema',
        'v.required_secrets',
        'v.version',
        'v.created_at',
      ])
      .where('c.user_id', '=', userId)
      .where('c.deleted_at', 'is', null)
      .orderBy('c.created_at', 'asc')
      .orderBy('c.id', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      display_name: r.display_name,
      purpose: r.purpose,
      website: r.website,
      input_schema: JSON.parse(r.input_schema),
      output_schema: JSON.parse(r.output_schema),
      required_secrets: JSON.parse(r.required_secrets),
      version: r.version,
      created_at: r.created_at,
    }));
  }

  async rename(userId: string, id: string, displayName: string): Promise<ConnectorView> {
    const head = await this.head(userId, id);
    await this.db.updateTable('connectors').set({ display_name: displayName, updated_at: nowIso() }).where('id', '=', head.id).execute();
    return this.get(userId, id);
  }

  /** Soft delete: the connector disappears from reads and can't be run; its runs stay readable. */
  async delete(userId: string, id: string): Promise<{ id: string; deleted: true }> {
    const head = await this.head(userId, id);
    await this.db
      .updateTable('connectors')
      .set({ deleted_at: nowIso() })
      .where('id', '=', head.id)
      .where('deleted_at', 'is', null)
      .execute();
    return { id: head.id, deleted: true };
  }

  async revisions(userId: string, id: string): Promise<{ data: ConnectorView[] }> {
    const head = await this.head(userId, id);
    const rows = await this.db
      .selectFrom('connector_versions')
      .selectAll()
      .where('connector_id', '=', id)
      .orderBy('version', 'desc')
      .execute();
    return { data: rows.map((v) => view(head, v)) };
  }

  async definition(userId: string, id: string, version?: number): Promise<{ connector_id: string; version: number; definition: unknown }> {
    const head = await this.head(userId, id);
    const v = await this.versionOf(id, version ?? head.current_version);
    if (!v) throw notFound('Connector version');
    return { connector_id: id, version: v.version, definition: JSON.parse(v.definition) };
  }

  /** For runs: the caller's connector (deleted ones too, flagged) at a version (default current). */
  async resolveVersion(userId: string, id: string, version?: number): Promise<ConnectorVersion | null> {
    if (!isUuid(id)) return null;
    const head = await this.db.selectFrom('connectors').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (!head) return null;
    const v = await this.versionOf(id, version ?? head.current_version);
    if (!v) return null;
    return {
      connectorId: id,
      userId,
      version: v.version,
      deleted: head.deleted_at !== null,
      inputSchema: JSON.parse(v.input_schema),
      outputSchema: JSON.parse(v.output_schema),
      requiredSecrets: JSON.parse(v.required_secrets),
      definition: JSON.parse(v.definition),
    };
  }

  /** Current version of a caller's connector (deleted included, flagged), or null. */
  async currentVersion(userId: string, id: string): Promise<{ version: number; deleted: boolean } | null> {
    if (!isUuid(id)) return null;
    const [head] = await this.versionHead(id, userId);
    return head ? { version: head.current_version, deleted: head.deleted_at !== null } : null;
  }
}
