import pkg from '../package.json' with { type: 'json' };

export const HOMEPORT_VERSION: string = pkg.version;
