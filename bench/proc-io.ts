/** Per-process counters from /proc that the fan-out benchmark and its bare-loop ceiling both read (no other imports). */
import fs from 'node:fs';

/**
 * Write system calls (write, writev, sendmsg …) a process has made so far, all its threads, from /proc (Linux);
 * NaN elsewhere. Under fan-out it tells whether the server writes to each socket as often as a bare loop does.
 */
export function writeSyscallsOf(pid: number | 'self'): number {
  try {
    const m = /^syscw: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}
