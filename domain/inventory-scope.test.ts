import { describe, expect, it } from 'vitest';
import {
  PUBLIC_SCOPE,
  companyInScope,
  scopeFromAppMetadata,
  scopeToAppMetadata,
  type InventoryScope,
  type ScopedCompany,
} from './inventory-scope.js';

const DEMO_ID = '7d0a9d3e-2f4b-4c1e-9a55-0c6f1f2b9e11';
const OTHER_DEMO_ID = '1b2c3d4e-5f60-4711-8a9b-abcdefabcdef';

const company = (change: Partial<ScopedCompany> = {}): ScopedCompany => ({
  id: DEMO_ID,
  status: 'ACTIVE',
  published: true,
  isInternal: false,
  isDemo: false,
  ...change,
});

const production: InventoryScope = { kind: 'PRODUCTION' };
const internal: InventoryScope = { kind: 'INTERNAL' };
const demo: InventoryScope = { kind: 'DEMO', companyId: DEMO_ID };

describe('companyInScope', () => {
  // One row per kind of company; columns: seen by a guest/regular account, an internal QA account, the demo persona.
  it.each([
    ['a real, active, published company', company(), true, false, false],
    ['an unpublished company', company({ published: false }), false, false, false],
    ['a suspended company', company({ status: 'SUSPENDED' }), false, false, false],
    ['an internal QA company', company({ isInternal: true }), false, true, false],
    [
      'an unpublished internal QA company',
      company({ isInternal: true, published: false }),
      false,
      true,
      false,
    ],
    [
      'a suspended internal QA company',
      company({ isInternal: true, status: 'SUSPENDED' }),
      false,
      false,
      false,
    ],
    ['the persona’s own demo company', company({ isDemo: true }), false, false, true],
    ['another demo company', company({ isDemo: true, id: OTHER_DEMO_ID }), false, false, false],
    ['a suspended demo company', company({ isDemo: true, status: 'SUSPENDED' }), false, false, false],
    [
      'a real company that happens to have the persona’s id but is not a demo',
      company({ isDemo: false }),
      true,
      false,
      false,
    ],
  ])('%s', (_name, row, seenByProduction, seenByInternal, seenByDemo) => {
    expect(companyInScope(production, row)).toBe(seenByProduction);
    expect(companyInScope(internal, row)).toBe(seenByInternal);
    expect(companyInScope(demo, row)).toBe(seenByDemo);
  });
});

describe('scopeFromAppMetadata', () => {
  it.each([
    ['no app_metadata', undefined, PUBLIC_SCOPE],
    ['null app_metadata', null, PUBLIC_SCOPE],
    ['app_metadata without a scope', { plan: 'gold' }, PUBLIC_SCOPE],
    ['PRODUCTION', { inventory_scope: 'PRODUCTION' }, PUBLIC_SCOPE],
    ['INTERNAL', { inventory_scope: 'INTERNAL' }, { kind: 'INTERNAL' }],
    [
      'DEMO with its company',
      { inventory_scope: 'DEMO', demo_company_id: DEMO_ID },
      { kind: 'DEMO', companyId: DEMO_ID },
    ],
    [
      'DEMO with an upper-case company id',
      { inventory_scope: 'DEMO', demo_company_id: DEMO_ID.toUpperCase() },
      { kind: 'DEMO', companyId: DEMO_ID },
    ],
  ])('reads %s', (_name, metadata, expected) => {
    expect(scopeFromAppMetadata(metadata)).toEqual(expected);
  });

  // Malformed claims are refused (null → 401), never widened to public inventory.
  it.each([
    ['a string', 'INTERNAL'],
    ['a number', 42],
    ['an unknown scope', { inventory_scope: 'ADMIN' }],
    ['a lower-case scope', { inventory_scope: 'internal' }],
    ['a non-string scope', { inventory_scope: ['INTERNAL'] }],
    ['a null scope', { inventory_scope: null }],
    ['DEMO without a company', { inventory_scope: 'DEMO' }],
    ['DEMO with a company id that is not a UUID', { inventory_scope: 'DEMO', demo_company_id: 'acme' }],
    ['DEMO with a numeric company id', { inventory_scope: 'DEMO', demo_company_id: 7 }],
  ])('refuses %s', (_name, metadata) => {
    expect(scopeFromAppMetadata(metadata)).toBeNull();
  });

  it.each([production, internal, demo])('reads back what scopeToAppMetadata wrote for %o', (scope) => {
    expect(scopeFromAppMetadata(scopeToAppMetadata(scope))).toEqual(scope);
  });
});
