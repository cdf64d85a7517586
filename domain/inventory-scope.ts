/**
 * Inventory scope: which companies' trips a caller may see. Decided only from server-set claims
 * (the access token's app_metadata), never from anything the traveller can edit.
 *
 *   PRODUCTION  guests and regular accounts: real companies that are active, published, not suspended
 *   INTERNAL    internal QA accounts: only companies flagged is_internal
 *   DEMO        a demo persona: only its own demo company
 */
export type InventoryScope =
  { kind: 'PRODUCTION' } | { kind: 'INTERNAL' } | { kind: 'DEMO'; companyId: string };

export const PUBLIC_SCOPE: InventoryScope = { kind: 'PRODUCTION' };

export interface ScopedCompany {
  id: string;
  status: 'ACTIVE' | 'SUSPENDED';
  published: boolean;
  isInternal: boolean;
  isDemo: boolean;
}

export function companyInScope(scope: InventoryScope, company: ScopedCompany): boolean {
  if (company.status !== 'ACTIVE') return false;
  switch (scope.kind) {
    case 'PRODUCTION':
      return company.published && !company.isInternal && !company.isDemo;
    case 'INTERNAL':
      return company.isInternal;
    case 'DEMO':
      return company.isDemo && company.id === scope.companyId;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads the scope from verified app_metadata. Anything malformed is refused (null) rather than
 * widened to public data: the caller answers 401.
 */
export function scopeFromAppMetadata(appMetadata: unknown): InventoryScope | null {
  if (appMetadata === undefined || appMetadata === null) return PUBLIC_SCOPE;
  if (typeof appMetadata !== 'object') return null;
  const { inventory_scope: kind, demo_company_id: companyId } = appMetadata as Record<string, unknown>;
  if (kind === undefined || kind === 'PRODUCTION') return PUBLIC_SCOPE;
  if (kind === 'INTERNAL') return { kind: 'INTERNAL' };
  if (kind === 'DEMO' && typeof companyId === 'string' && UUID.test(companyId)) {
    return { kind: 'DEMO', companyId: companyId.toLowerCase() };
  }
  return null;
}

export function scopeToAppMetadata(scope: InventoryScope): Record<string, string> {
  return scope.kind === 'DEMO'
    ? { inventory_scope: 'DEMO', demo_company_id: scope.companyId }
    : { inventory_scope: scope.kind };
}
