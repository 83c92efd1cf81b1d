// Plain JavaScript any Node.js can parse: checked before the TypeScript sources are loaded.
export const REQUIRED_NODE = '22.12.0';

/** The message for a Node.js older than Homeport needs, or null when `version` (e.g. "v20.20.2") will do. */
export function nodeVersionProblem(version) {
  const [major, minor] = String(version).replace(/^v/, '').split('.').map(Number);
  const [needMajor, needMinor] = REQUIRED_NODE.split('.').map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return `Homeport needs Node.js ${needMajor}.${needMinor} or newer (found ${version})`;
}
