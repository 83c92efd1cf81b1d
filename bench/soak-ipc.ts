/**
 * The soak's client processes (bench/soak.ts): each kind of client runs in a process of its own, so one kind's
 * work (a thousand sockets' messages) never delays another's heartbeats, and each one's CPU time is its own. The
 * soak calls a worker's commands over Node's IPC channel; a worker answers each call with its result.
 */
import { fork, type ChildProcess } from 'node:child_process';

type Handler = (argument: never) => unknown;
interface Call {
  id: number;
  command: string;
  argument: unknown;
}
type Answer = { id: number; result: unknown } | { id: number; error: string };

/** In a worker: answers the soak's calls with `handlers`; the worker ends when the soak does. */
export function answerCalls(handlers: Record<string, Handler>): void {
  process.on('message', async (call: Call) => {
    let answer: Answer;
    try {
      const handler = handlers[call.command];
      if (!handler) throw new Error(`no command ${call.command}`);
      answer = { id: call.id, result: await handler(call.argument as never) };
    } catch (err) {
      answer = { id: call.id, error: String((err as Error).stack ?? err) };
    }
    process.send!(answer);
  });
  // The soak ended (or died): nothing is left to report to.
  process.once('disconnect', () => process.exit(0));
}

/** CPU time this process used so far, in seconds (reported by each worker so the soak shows what clients cost). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

export interface Worker {
  name: string;
  pid: number;
  call<T>(command: string, argument?: unknown): Promise<T>;
  /** Ends it (its sockets close with it). */
  kill(): void;
}

/** Starts bench/`file` in a process of its own (Node strips the types, as `npm run bench:soak` runs the soak). */
export function startWorker(name: string, file: string): Worker {
  const child: ChildProcess = fork(new URL(file, import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (answer: Answer) => {
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if ('error' in answer) waiting.reject(new Error(`soak worker ${name}: ${answer.error}`));
    else waiting.resolve(answer.result);
  });
  child.once('exit', (code, signal) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`soak worker ${name} exited (${signal ?? code})`));
    pending.clear();
  });
  return {
    name,
    pid: child.pid!,
    call: <T>(command: string, argument?: unknown) =>
      new Promise<T>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, command, argument } satisfies Call);
      }),
    kill: () => child.kill('SIGKILL'),
  };
}
