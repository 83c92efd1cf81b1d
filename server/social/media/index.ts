// The public face of server/social/media/: what code outside the folder uses of it.
export { PROFILE_IMAGE_LIMIT, isUploadedFile, processProfileImage, uploadHead } from './images.ts';
export type { UploadedFile } from './images.ts';
export {
  CONTENT_TYPES,
  MediaRejection,
  checkUpload,
  extensionOf,
  previewOf,
  processThumbnail,
  processUpload,
  sniff,
} from './processing.ts';
export type { ProcessedFile } from './processing.ts';
export { mediaFileRoutes } from './routes.ts';
export { MediaStorage } from './storage.ts';
export { loadSharp } from './sharp.ts';
