import type { InventoryScope } from '../../domain/inventory-scope.js';

/**
 * SQL condition on a companies row (alias `c` by default) equivalent to domain companyInScope.
 * Pushes its parameters onto `params` and returns the condition text.
 */
export function companyScopeSql(scope: InventoryScope, params: unknown[], alias = 'c'): string {
  const active = `${alias}.status = 'ACTIVE'`;
  switch (scope.kind) {
    case 'PRODUCTION':
      return `(${active} and ${alias}.published and not ${alias}.is_internal and not ${alias}.is_demo)`;
    case 'INTERNAL':
      return `(${active} and ${alias}.is_internal)`;
    case 'DEMO':
      params.push(scope.companyId);
      return `(${active} and ${alias}.is_demo and ${alias}.id = $${params.length})`;
  }
}
