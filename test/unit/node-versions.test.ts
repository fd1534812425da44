import { describe, expect, it } from 'vitest';
import { permissionFlag } from '../../src/runtime/host/node-permission.js';
import { SQLite, sqliteDriverPackage } from '../../src/adapters/db/sqlite-driver.js';

describe('permission flag for sandbox workers', () => {
  it('uses the stable spelling when Node accepts it (22.13+, 23.5+, 24)', () => {
    expect(permissionFlag(new Set(['--permission', '--experimental-permission']))).toBe('--permission');
    expect(permissionFlag(new Set(['--permission']))).toBe('--permission');
  });
  it('falls back to the experimental spelling on Node 20', () => {
    expect(permissionFlag(new Set(['--experimental-permission']))).toBe('--experimental-permission');
  });
  it('matches what this Node accepts', () => {
    expect(process.allowedNodeEnvironmentFlags.has(permissionFlag())).toBe(true);
  });
});

describe('SQLite driver per Node major', () => {
  it('loads better-sqlite3 13 from Node 22 on and 12 on Node 20', () => {
    expect(sqliteDriverPackage(20)).toBe('better-sqlite3');
    expect(sqliteDriverPackage(22)).toBe('better-sqlite3-13');
    expect(sqliteDriverPackage(24)).toBe('better-sqlite3-13');
  });
  it('opens a working in-memory database on this Node', () => {
    const db = new SQLite(':memory:');
    expect(db.prepare('select 1 + 1 as x').get()).toEqual({ x: 2 });
    db.close();
  });
});
