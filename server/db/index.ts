export { openDatabase, currentSchemaVersion, type Migration, type OpenDatabaseOptions, type Database } from './open.ts';
