import type { Logger } from '../../logger.ts';
import { startDrainLoop } from '../drain-loop.ts';
import type { ImportRow, BulkImport, ImportRowData, SocialStore } from '../store/index.ts';
import { type AccountData, errorReason, type ImportLookups, type ImportTarget } from './account-data.ts';
import type { DataKind } from './account-data-csv.ts';

/**
 * What the worker reads of the social context. Named here rather than importing the context, which names the
 * domain's services through its index: the import would close a cycle.
 */
interface ImportWorkerContext {
  store: SocialStore;
  logger: Logger;
  accountData: AccountData;
}

export interface ImportWorkerOptions {
  /** Rows looked up at once, over all imports (each lookup is a WebFinger and an actor fetch on another server). */
  concurrency?: number;
  /** Longest a row's lookup may take before the row fails. */
  rowTimeoutMs?: number;
}

export interface ImportWorker {
  close(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_ROW_TIMEOUT_MS = 30_000;
/** Starts of a row's lookup that may end with the server stopping before the row fails without another. */
const MAX_LOOKUP_STARTS = 2;
/** After a lookup on a server timed out, its other rows fail at once for this long (Mastodon's stoplight cool-off). */
const COOL_OFF_MS = 5 * 60_000;
/** Finished imports are kept this long (Mastodon's archive period), then deleted with their failed rows. */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;

class LookupTimeout extends Error {}

/**
 * Works off CSV imports in the background (Mastodon's BulkImportWorker and Import::RowWorker): scheduled
 * imports begin, then their rows are looked up a few at a time over all imports, each lookup bounded in time,
 * and applied one by one. Rows live in social.db, so a restart resumes where the last run stopped (a row
 * being looked up then is looked up again). Started with the server; new imports wake it.
 */
export function startImportWorker(
  ctx: ImportWorkerContext,
  find: ImportLookups,
  options: ImportWorkerOptions = {},
): ImportWorker {
  const { store } = ctx;
  const log = ctx.logger.child({ component: 'imports' });
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const rowTimeoutMs = options.rowTimeoutMs ?? DEFAULT_ROW_TIMEOUT_MS;
  /** Servers whose lookups timed out, until when their rows fail without trying. */
  const coolingOff = new Map<string, number>();

  /** Begins every scheduled import: what needs no lookup is done at once, not after the rows ahead of it. */
  const beginScheduled = () => {
    for (let imp: BulkImport | null; (imp = store.imports.nextScheduled()); ) {
      try {
        ctx.accountData.begin(imp);
      } catch (err) {
        log.error({ err, importId: imp.id }, 'an import could not begin; its rows fail');
        store.imports.markInProgress(imp.id);
        store.imports.abandon(imp.id, `the import could not begin: ${errorReason(err)}`);
      }
    }
  };

  const lookup = async (kind: DataKind, data: ImportRowData, signal: AbortSignal): Promise<ImportTarget> => {
    const server = serverOf(data);
    if (server && (coolingOff.get(server) ?? 0) > Date.now())
      throw new LookupTimeout(`its server (${server}) did not answer a moment ago; import this row again later`);
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const looked = ctx.accountData.lookup(kind, data, find);
    try {
      return await Promise.race([
        looked,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new LookupTimeout(`its server did not answer within ${rowTimeoutMs / 1000} s`)),
            rowTimeoutMs,
          );
          onAbort = () => reject(new Error('stopped'));
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } catch (err) {
      if (err instanceof LookupTimeout && server) coolingOff.set(server, Date.now() + COOL_OFF_MS);
      // A lookup left behind may still end; what it says is no longer wanted.
      looked.catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  };

  const work = async (row: ImportRow & { import: BulkImport }, signal: AbortSignal): Promise<void> => {
    const kind = row.import.type as DataKind;
    const me = store.accounts.byId(row.import.accountId);
    if (!me || me.deletedAt !== null || me.suspendedAt !== null) {
      store.imports.abandon(row.importId, 'the account is no longer active');
      return;
    }
    // A lookup the server did not survive (it died while reading the other server's answer) is not tried forever.
    if (store.imports.startLookup(row.id) > MAX_LOOKUP_STARTS) {
      store.imports.settle(
        row,
        `its lookup was cut short ${MAX_LOOKUP_STARTS} times by the server stopping; not tried again`,
      );
      return;
    }
    let target: ImportTarget;
    try {
      target = await lookup(kind, row.data, signal);
    } catch (err) {
      // Stopping: the row stays waiting, for the next start, and this lookup does not count.
      if (signal.aborted) store.imports.forgetLookup(row.id);
      else store.imports.settle(row, errorReason(err));
      return;
    }
    if (signal.aborted) {
      store.imports.forgetLookup(row.id);
      return;
    }
    let error: string | null;
    try {
      error = ctx.accountData.apply(me, kind, row.data, target);
    } catch (err) {
      error = errorReason(err);
    }
    store.imports.settle(row, error);
  };

  /** While a pass runs: starts lanes up to `concurrency` (a new import must not wait for the pass to end). */
  let topUp: (() => void) | null = null;
  const drain = async (signal: AbortSignal): Promise<void> => {
    store.imports.purgeFinished(store.now() - KEEP_FINISHED_MS);
    const busy = new Set<string>();
    const lanes = new Set<Promise<void>>();
    const lane = async () => {
      while (!signal.aborted) {
        const row = store.imports.nextPending(busy);
        if (!row) return;
        busy.add(row.id);
        try {
          await work(row, signal);
        } finally {
          busy.delete(row.id);
        }
      }
    };
    topUp = () => {
      while (lanes.size < concurrency && !signal.aborted) {
        const running: Promise<void> = lane()
          .catch((err: unknown) => log.error({ err }, 'an import row could not be worked on'))
          .finally(() => lanes.delete(running));
        lanes.add(running);
      }
    };
    try {
      beginScheduled();
      topUp();
      while (lanes.size > 0) await Promise.all([...lanes]);
    } finally {
      topUp = null;
    }
  };

  const loop = startDrainLoop({
    drain,
    now: () => store.now(),
    onError: (err) => log.error({ err }, 'import worker failed'),
  });
  let closed = false;
  // After the request that stored it has been answered: a new import begins even while every lane is busy.
  ctx.accountData.onScheduled = () =>
    setImmediate(() => {
      if (closed) return;
      try {
        beginScheduled();
      } catch (err) {
        log.error({ err }, 'imports could not begin');
      }
      if (topUp) topUp();
      else loop.kick();
    });
  return {
    async close() {
      closed = true;
      ctx.accountData.onScheduled = () => {};
      await loop.close();
    },
  };
}

/** The server a row's lookup goes to (by its address or URI), null for this server's own. */
function serverOf(data: ImportRowData): string | null {
  if (data.uri) {
    try {
      return new URL(data.uri).host.toLowerCase();
    } catch {
      return null;
    }
  }
  const at = (data.acct ?? '').replace(/^@/, '').indexOf('@');
  return at > 0
    ? data
        .acct!.replace(/^@/, '')
        .slice(at + 1)
        .toLowerCase()
    : null;
}
