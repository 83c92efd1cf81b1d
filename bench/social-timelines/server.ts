/** The social server as bench/social-timelines.ts serves it (the general API rate limit off), with extra routes. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../server/http/index.ts';
import { openSocial, type Social } from '../../server/social/index.ts';
import { benchLogger } from './seed.ts';

export async function openBenchServer(
  dataDir: string,
  routes: (app: FastifyInstance, social: Social) => Promise<void>,
): Promise<{ social: Social; http: FastifyInstance }> {
  const logger = benchLogger();
  const social = await openSocial({ dataDir, logger, domain: 'localhost:0', generalRateLimit: false });
  const http = await createHttpServer({
    logger,
    rendererDir: null,
    plugins: [
      { name: 'social', plugin: social.plugin },
      { name: 'bench', plugin: (app) => routes(app, social) },
    ],
  });
  return { social, http };
}

/** Runs a bench script's `serve` mode in a child process (Node flags first) and resolves with its loopback port. */
export function serverProcess(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`server ${args.join(' ')} exited with ${code}`)));
  });
}
