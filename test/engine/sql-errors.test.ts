/**
 * Database errors as catalogue errors (sql-errors.ts): a shaped grant's (`quiet`) carry
 * the SQLSTATE and never Postgres' message, which may quote a row value. Both executors
 * (pg and embedded PGlite) build their errors here; test/sql/sql-shaping-errors.test.ts
 * proves the pg one end to end.
 */
import { describe, expect, it } from 'vitest';
import { sqlError } from '../../src/engine/backends/sql/sql-errors.js';

const VALUE = 'row-value-3Kd1';
const errors = [
  { code: '22P02', message: `invalid input syntax for type integer: "${VALUE}"` },
  { code: '22003', message: `value "${VALUE}" is out of range for type integer` },
  { code: 'P0001', message: `code ${VALUE} is not valid` },
  { code: '23505', message: 'duplicate key', detail: `Key (email)=(${VALUE}) already exists.` },
  { message: `something about ${VALUE}` },
];

describe('sqlError', () => {
  it('quotes no part of the database message for a shaped grant, and keeps the SQLSTATE', () => {
    for (const err of errors) {
      const e = sqlError(err, 1000, true);
      expect(JSON.stringify(e)).not.toContain(VALUE);
      if (err.code) expect(e.message).toContain(`SQLSTATE ${err.code}`);
    }
  });

  it('still explains a data error with the database message for a grant that does not shape', () => {
    expect(sqlError(errors[0], 1000).message).toContain(VALUE);
  });
});
