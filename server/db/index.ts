export {
  checkIntegrityInBackground,
  DamagedDatabaseError,
  openDatabase,
  currentSchemaVersion,
  type Migration,
  type OpenDatabaseOptions,
  type Database,
} from './open.ts';
export { startBackgroundCheckpointer, type BackgroundCheckpointer } from './background-checkpointer.ts';
