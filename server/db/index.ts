export {
  checkIntegrityInBackground,
  DamagedDatabaseError,
  openDatabase,
  currentSchemaVersion,
  type Migration,
  type Database,
} from './open.ts';
export { startBackgroundCheckpointer, writerCheckpointsOf } from './background-checkpointer.ts';
export { preparingUnseen, valuesUnseenByPlanner } from './unseen-values.ts';
export { WriteGroups, writeGroupsOf } from './write-groups.ts';
