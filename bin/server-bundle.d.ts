export declare function currentServerBundle(root: string, env?: NodeJS.ProcessEnv): string | null;
