import { describe, expect, it } from 'vitest';
import { isDuplicateRefresh, isOrphanedReplacement } from './refresh-token-reuse.js';

describe('isDuplicateRefresh', () => {
  it('takes a used token presented again within the grace, no replacement used, for a duplicate', () => {
    expect(isDuplicateRefresh({ secondsSinceUse: 0.2, replacementUsed: false }, 10)).toBe(true);
    expect(isDuplicateRefresh({ secondsSinceUse: 9.99, replacementUsed: false }, 10)).toBe(true);
  });

  it('counts a request that began before the first use committed as within the grace', () => {
    expect(isDuplicateRefresh({ secondsSinceUse: -0.05, replacementUsed: false }, 10)).toBe(true);
  });

  it('takes reuse at or after the grace for theft', () => {
    expect(isDuplicateRefresh({ secondsSinceUse: 10, replacementUsed: false }, 10)).toBe(false);
    expect(isDuplicateRefresh({ secondsSinceUse: 3600, replacementUsed: false }, 10)).toBe(false);
  });

  it('takes reuse after a replacement was used for theft, however soon', () => {
    expect(isDuplicateRefresh({ secondsSinceUse: 0.2, replacementUsed: true }, 10)).toBe(false);
  });

  it('has no grace at all when it is 0', () => {
    expect(isDuplicateRefresh({ secondsSinceUse: -0.05, replacementUsed: false }, 0)).toBe(false);
    expect(isDuplicateRefresh({ secondsSinceUse: 0, replacementUsed: false }, 0)).toBe(false);
  });
});

describe('isOrphanedReplacement', () => {
  it('takes the first use of a replacement whose sibling was used for reuse, and of any other for a refresh', () => {
    expect(isOrphanedReplacement({ siblingUsed: true })).toBe(true);
    expect(isOrphanedReplacement({ siblingUsed: false })).toBe(false);
  });
});
