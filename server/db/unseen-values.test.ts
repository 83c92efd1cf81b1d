import { describe, expect, it } from 'vitest';
import { valuesUnseenByPlanner } from './unseen-values.ts';

describe('valuesUnseenByPlanner', () => {
  it('puts a plus before every positional, numbered and named parameter', () => {
    expect(valuesUnseenByPlanner('SELECT * FROM t WHERE a = ? AND b IN (?2, @b) AND c = :c AND d = $d LIMIT ?')).toBe(
      'SELECT * FROM t WHERE a = +? AND b IN (+?2, +@b) AND c = +:c AND d = +$d LIMIT +?',
    );
  });

  it('leaves string literals, quoted names and comments as they are', () => {
    const sql = `SELECT "a?" , [b@c], \`d:e\` FROM t -- x = ?\n WHERE u = 'who@example?' || @at /* @no ? */ AND v = 'it''s ?'`;
    expect(valuesUnseenByPlanner(sql)).toBe(
      `SELECT "a?" , [b@c], \`d:e\` FROM t -- x = ?\n WHERE u = 'who@example?' || +@at /* @no ? */ AND v = 'it''s ?'`,
    );
  });

  it('leaves the patterns of LIKE, GLOB and MATCH bare, and a parameter already behind a plus', () => {
    expect(
      valuesUnseenByPlanner(
        'SELECT 1 FROM t WHERE a LIKE @p ESCAPE ? OR b NOT GLOB ? OR f MATCH @m OR c = +? OR d = ?',
      ),
    ).toBe('SELECT 1 FROM t WHERE a LIKE @p ESCAPE ? OR b NOT GLOB ? OR f MATCH @m OR c = +? OR d = +?');
  });

  it('rewrites the operands of a pattern built from parameters, whose value the planner cannot use anyway', () => {
    expect(valuesUnseenByPlanner("SELECT 1 FROM t WHERE lower(a) LIKE '%' || @q || '%' AND b = @q")).toBe(
      "SELECT 1 FROM t WHERE lower(a) LIKE '%' || +@q || '%' AND b = +@q",
    );
  });
});
