// Published versions are immutable, so each one is loaded once and its input/output schemas are
// compiled once (ajv) and kept: run creation and result checks don't recompile per run.
import type { ValidateFunction } from 'ajv';
import { makeAjv } from '../../lib/json-schema.js';
import type { ConnectorVersion, VersionSource } from '../ports.js';

export interface CachedVersion extends ConnectorVersion {
  checkArgs: ValidateFunction;
  checkResult: ValidateFunction;
}

// Arguments get their schema defaults applied; results are checked as they are.
const argsAjv = makeAjv({ useDefaults: true });
const resultAjv = makeAjv({ useDefaults: false });

export class VersionCache {
  private readonly cache = new Map<string, CachedVersion>();
  compiles = 0;

  constructor(
    private readonly connectors: VersionSource,
    private readonly max = 2000,
  ) {}

  /** A version of a caller's connector, or null. (`deleted` may be stale: check the connector row.) */
  async get(userId: string, connectorId: string, version: number): Promise<CachedVersion | null> {
    const key = `${connectorId}:${version}`;
    const hit = this.cache.get(key);
    if (hit && hit.userId === userId) return hit;
    if (hit) return null;
    const v = await this.connectors.resolveVersion(userId, connectorId, version);
    if (!v) return null;
    this.compiles++;
    const c: CachedVersion = { ...v, checkArgs: argsAjv.compile(v.inputSchema), checkResult: resultAjv.compile(v.outputSchema) };
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, c);
    return c;
  }
}
