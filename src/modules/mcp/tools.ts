// The MCP face of a user's account: one tool per connector (its newest version; calling it runs
// the connector synchronously through the runs service, as POST /v1beta/runs does), plus tools
// that read runs and list secret metadata. Everything is scoped to one user; no HTTP here (the
// transport is mounted by routes.ts). Secret values never pass through: a connector's secret
// slots are bound to stored secrets by id.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { DomainError, InvalidInput, type Problem } from '../../lib/errors.js';
import { ajvToEntries } from '../../lib/json-schema-problems.js';
import { makeAjv, rejectingNul, type Validate } from '../../lib/json-schema.js';
import type { ConnectorsService } from '../connectors/service.js';
import type { ConnectorView } from '../connectors/schemas.js';
import type { RunsService } from '../runs/service.js';
import { RUN_STATUSES, type RunView } from '../runs/schemas.js';
import type { SecretsService } from '../secrets/service.js';

export interface McpDeps {
  connectors: ConnectorsService;
  runs: RunsService;
  secrets: SecretsService;
  /** While a run executes, a caller that asked for progress hears from us this often (keeps its timeout from firing). */
  progressIntervalS: number;
}

/** What a tool handler may log: unexpected failures only (never arguments). */
export interface McpLog {
  error(obj: object, msg: string): void;
}

export const SERVER_INFO = { name: 'connector-service', version: '0.0.1' };

/** MCP's tool name pattern. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/** A connector tool's result text and structured content stay below this (UTF-8 bytes of the result's JSON). */
export const MAX_TOOL_RESULT_BYTES = 1024 * 1024;

const LIST_RUNS = 'list_runs';
const GET_RUN = 'get_run';
const GET_RUN_LOGS = 'get_run_logs';
const LIST_SECRETS = 'list_secrets';
const FIXED_TOOLS = [LIST_RUNS, GET_RUN, GET_RUN_LOGS, LIST_SECRETS];

/** A connector's name as an MCP tool name: ASCII letters, digits, `_` and `-`, lower case, at most 64 characters. */
export function sanitizeToolName(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const s = ascii
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, MAX_NAME)
    .replace(/[_-]+$/, '');
  return s || 'connector';
}

/**
 * Tool names for connectors, oldest connector first so an existing tool keeps its name when a
 * newer connector with the same name appears (that one gets `_2`, `_3`, …). Names of the fixed
 * tools are taken.
 */
export function assignToolNames(connectors: readonly { id: string; display_name: string }[]): Map<string, string> {
  const taken = new Set(FIXED_TOOLS);
  const byName = new Map<string, string>();
  for (const c of connectors) {
    const base = sanitizeToolName(c.display_name);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    taken.add(name);
    byName.set(name, c.id);
  }
  return byName;
}

/** The argument that carries secret bindings: `secret_bindings` unless the connector's own input has one. */
function bindingsArg(inputSchema: Record<string, unknown>): string {
  const props = (inputSchema.properties ?? {}) as Record<string, unknown>;
  let name = 'secret_bindings';
  while (Object.hasOwn(props, name)) name = `_${name}`;
  return name;
}

interface ConnectorTool {
  tool: Tool;
  connector: ConnectorView;
  /** Name of the extra argument holding slot → secret id, when the connector has secret slots. */
  bindings: string | null;
}

function connectorTool(name: string, c: ConnectorView): ConnectorTool {
  const schema = structuredClone(c.input_schema) as Record<string, unknown>;
  const lines = [c.purpose];
  if (c.website) lines.push(`Website: ${c.website}`);
  let bindings: string | null = null;
  if (c.required_secrets.length) {
    bindings = bindingsArg(schema);
    const slots = c.required_secrets.map((s) => `'${s.name}' (${s.type}${s.description ? `: ${s.description}` : ''})`);
    lines.push(
      `Needs stored secrets: pass \`${bindings}\` as {slot: secret id} for slot ${slots.join(', ')}. ` +
        `The list_secrets tool lists your secrets' ids (never their values).`,
    );
    const properties: Record<string, unknown> = {};
    for (const s of c.required_secrets) {
      properties[s.name] = { type: 'string', description: `Id of a stored ${s.type} secret${s.description ? ` (${s.description})` : ''}` };
    }
    schema.type ??= 'object';
    schema.properties = {
      ...((schema.properties ?? {}) as Record<string, unknown>),
      [bindings]: {
        type: 'object',
        description: 'Secret slot → id of one of your stored secrets (see list_secrets). Not a connector argument.',
        properties,
        additionalProperties: false,
      },
    };
  }
  lines.push(`Runs connector ${c.id} (version ${c.version}) synchronously; the result carries run_id for get_run / get_run_logs.`);
  return {
    tool: {
      name,
      title: c.display_name,
      description: lines.join('\n'),
      inputSchema: schema as Tool['inputSchema'],
      annotations: { title: c.display_name, readOnlyHint: false, openWorldHint: true },
    },
    connector: c,
    bindings,
  };
}

const limitProp = { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Most runs to return, 1 to 100.' };
const runIdProp = { type: 'string', maxLength: 200, description: 'Run id (from a connector tool result or list_runs).' };

const FIXED: Tool[] = [
  {
    name: LIST_RUNS,
    description: 'Your runs, newest first, optionally of one connector and/or with one status. Results are left out; use get_run for one.',
    inputSchema: {
      type: 'object',
      properties: {
        connector_id: { type: 'string', maxLength: 200, description: 'Only runs of this connector (any version).' },
        status: { type: 'string', enum: [...RUN_STATUSES], description: 'Only runs with this status.' },
        limit: limitProp,
        cursor: { type: 'string', maxLength: 2000, description: 'next_cursor of a previous list_runs answer.' },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: GET_RUN,
    description: 'One run: status, arguments, result (when stored), error.',
    inputSchema: { type: 'object', properties: { run_id: runIdProp }, required: ['run_id'], additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: GET_RUN_LOGS,
    description: "A run's logs: engine steps and the connector's own lines, timestamped, secret values scrubbed.",
    inputSchema: { type: 'object', properties: { run_id: runIdProp }, required: ['run_id'], additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: LIST_SECRETS,
    description: "Your stored secrets (id, name, type, website, has_totp), to bind to a connector's secret slots. Values are never shown.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
];

const json = (v: unknown) => JSON.stringify(v, null, 2);

function ok(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: json(structured) }], structuredContent: structured };
}

function toolError(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

/** Problems as `field: message` lines, locations relative to the tool's arguments. */
function describeProblems(problems: Problem[], bindings: string | null): string {
  const lines = problems.map((p) => {
    let loc = p.loc.slice(p.loc[0] === 'body' || p.loc[0] === 'query' ? 1 : 0);
    if (loc[0] === 'arguments') loc = loc.slice(1);
    else if (loc[0] === 'secret_bindings' && bindings) loc = [bindings, ...loc.slice(1)];
    return `- ${loc.length ? loc.join('.') : '(arguments)'}: ${p.msg}`;
  });
  return `Invalid arguments:\n${lines.join('\n')}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** The fixed tools' argument checks: the same validator (and problem vocabulary) as the API's bodies. */
const ajv = makeAjv({ useDefaults: true });
const CHECKS = new Map(FIXED.map((t) => [t.name, rejectingNul(ajv.compile(t.inputSchema) as Validate)]));

function fixedArgs(name: string, args: Record<string, unknown>): Problem[] {
  const check = CHECKS.get(name)!;
  return check(args) ? [] : ajvToEntries(check.errors ?? [], 'arguments', args);
}

/** A run as a tool answers it: the run's fields, the result left out when it is too large to hand over. */
function runContent(view: RunView): Record<string, unknown> {
  const { result, ...rest } = view;
  const size = result === null || result === undefined ? 0 : Buffer.byteLength(JSON.stringify(result));
  if (size > MAX_TOOL_RESULT_BYTES) {
    return {
      run_id: view.id,
      ...rest,
      result: null,
      result_omitted: `The result (${size} bytes) is larger than this tool answers (${MAX_TOOL_RESULT_BYTES} bytes); read it with GET /v1beta/runs/${view.id}.`,
    };
  }
  return { run_id: view.id, ...rest, result };
}

export class McpTools {
  constructor(
    private readonly d: McpDeps,
    private readonly userId: string,
    private readonly log: McpLog,
  ) {}

  /** The user's connectors (newest version each), oldest first, with their tool names. */
  async connectorTools(): Promise<Map<string, ConnectorTool>> {
    const all = await this.d.connectors.allCurrent(this.userId);
    const names = assignToolNames(all);
    const byId = new Map(all.map((c) => [c.id, c]));
    return new Map([...names].map(([name, id]) => [name, connectorTool(name, byId.get(id)!)]));
  }

  async list(): Promise<Tool[]> {
    return [...[...(await this.connectorTools()).values()].map((t) => t.tool), ...FIXED];
  }

  async call(name: string, rawArgs: Record<string, unknown> | undefined, progress?: () => Promise<void>): Promise<CallToolResult> {
    const args = rawArgs ?? {};
    let bindings: string | null = null;
    try {
      const fixed = FIXED.find((t) => t.name === name);
      if (fixed) {
        const problems = fixedArgs(name, args);
        if (problems.length) return toolError(describeProblems(problems, null));
        return await this.fixed(name, args);
      }
      const t = (await this.connectorTools()).get(name);
      if (!t) return toolError(`Unknown tool '${name}'. List the tools again: connectors may have been added, renamed or deleted.`);
      bindings = t.bindings;
      return await this.runConnector(t, args, progress);
    } catch (e) {
      if (e instanceof InvalidInput) return toolError(describeProblems(e.problems, bindings));
      if (e instanceof DomainError && e.code !== 'internal') return toolError(e.message);
      this.log.error({ err: e, tool: name }, 'MCP tool call failed');
      return toolError('Internal error');
    }
  }

  private async fixed(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const u = this.userId;
    switch (name) {
      case LIST_RUNS: {
        const page = await this.d.runs.listRecent(u, {
          connector_id: args.connector_id as string | undefined,
          status: args.status as string | undefined,
          limit: (args.limit as number | undefined) ?? 20,
          cursor: args.cursor as string | undefined,
        });
        const runs = page.data.map(({ result: _r, ...r }) => ({ run_id: r.id, ...r }));
        return ok({ runs, has_more: page.has_more, next_cursor: page.next_cursor });
      }
      case GET_RUN:
        return ok(runContent(await this.d.runs.get(u, args.run_id as string)));
      case GET_RUN_LOGS: {
        const { logs } = await this.d.runs.logs(u, args.run_id as string);
        return { content: [{ type: 'text', text: logs || '(no logs)' }], structuredContent: { run_id: args.run_id, logs } };
      }
      default: {
        const secrets = (await this.d.secrets.list(u)).map(({ user_id: _u, ...s }) => s);
        return ok({ secrets });
      }
    }
  }

  private async runConnector(t: ConnectorTool, rawArgs: Record<string, unknown>, progress?: () => Promise<void>): Promise<CallToolResult> {
    const args = { ...rawArgs };
    const bound = t.bindings ? args[t.bindings] : undefined;
    if (t.bindings) delete args[t.bindings];
    const problems: Problem[] = [];
    const secretBindings: Record<string, string> = {};
    if (bound !== undefined) {
      if (!isPlainObject(bound))
        problems.push({ loc: [t.bindings!], msg: 'Input should be an object of slot → secret id', type: 'dict_type' });
      else
        for (const [slot, id] of Object.entries(bound)) {
          if (typeof id !== 'string' || id.length > 200)
            problems.push({ loc: [t.bindings!, slot], msg: 'Input should be a secret id (a string)', type: 'string_type' });
          else secretBindings[slot] = id;
        }
    }
    if (problems.length) return toolError(describeProblems(problems, null));
    const timer = progress ? setInterval(() => void progress().catch(() => {}), this.d.progressIntervalS * 1000) : null;
    let view: RunView;
    try {
      ({ view } = await this.d.runs.create(this.userId, {
        connector_id: t.connector.id,
        arguments: args,
        ...(t.bindings ? { secret_bindings: secretBindings } : {}),
        async: false,
      }));
    } finally {
      if (timer) clearInterval(timer);
    }
    const content = runContent(view);
    if (view.status === 'success') return ok(content);
    const err = view.error;
    const what = err ? `${err.type}: ${err.message}` : view.status;
    return toolError(`Run ${view.id} ended ${view.status} (${what}). Its logs: get_run_logs {"run_id": "${view.id}"}.`, content);
  }
}

/** An MCP server for one request of one user (the transport is stateless). */
export function createMcpServer(deps: McpDeps, userId: string, log: McpLog): Server {
  const tools = new McpTools(deps, userId, log);
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      "Each connector tool runs one of the user's Connector Service connectors against its website and returns the result " +
      '(with run_id). list_runs, get_run and get_run_logs read past runs; list_secrets gives the ids to put in secret_bindings.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    let n = 0;
    const progress =
      token === undefined
        ? undefined
        : () =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: ++n, message: 'run in progress' },
            });
    return tools.call(req.params.name, req.params.arguments, progress);
  });
  return server;
}
