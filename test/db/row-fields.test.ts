import { describe, expect, it } from 'vitest';
import { camelFields, pickColumns } from '../../db/row-fields.js';

/**
 * The typed row mappers answers are built with: the named columns pass through, in the order the
 * mapper names them (an answer's JSON keeps that order), and a column not named stays out.
 */
describe('row mappers', () => {
  const row = { total: 7, plate_number: 'DAM-1', id: 'b1', layout_id: null };

  it('pickColumns keeps the named columns under their own names, in the order named', () => {
    const picked = pickColumns(row, ['id', 'plate_number', 'layout_id']);
    expect(JSON.stringify(picked)).toBe('{"id":"b1","plate_number":"DAM-1","layout_id":null}');
  });

  it('camelFields keeps the same order under camelCase names', () => {
    const fields = camelFields(row, ['id', 'plate_number', 'layout_id']);
    expect(JSON.stringify(fields)).toBe('{"id":"b1","plateNumber":"DAM-1","layoutId":null}');
  });
});
