/** Online backups of a data directory and their restore (CLI `homeport backup|restore`, the Server view). */
export {
  backupDataDir,
  checkBackupTarget,
  restoreDataDir,
  BackupError,
  type BackupManifest,
  type BackupProgress,
} from './backup.ts';
