import { runCli } from '../main.ts';

/** Runs `homeport <args>` in this process and returns its exit code and output lines. */
export async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: {},
    stopSignal: new Promise(() => {}),
  });
  return { code, out, err };
}
