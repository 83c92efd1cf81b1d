/** Test support of the database layer. */
export {
  bareStatements,
  planOf,
  plannedOtherwise,
  type PreparedStatement,
  statementsOf,
  statementsWhile,
} from './statements.ts';
