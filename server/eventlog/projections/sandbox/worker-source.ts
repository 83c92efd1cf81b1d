/**
 * The sandbox worker: a worker thread holding one QuickJS runtime (WebAssembly) with one projection's
 * query in it. QuickJS offers only the ECMAScript built-ins: no require, no file system, no network, no
 * timers, no `process`; the host adds nothing but the projection API (PRELUDE), so the query reaches
 * nothing of the server. Each call into the query (compile, every event) gets a deadline through the
 * runtime's interrupt handler, and the runtime has a memory and a stack limit; the host thread
 * also terminates the worker when it stops answering. Plain CommonJS text (an eval worker), like the
 * WAL checkpointer's, so it runs the same from the TypeScript sources and from the bundled app.
 */
export const SANDBOX_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { newQuickJSWASMModuleFromVariant } = require(workerData.coreModule);
const variant = require(workerData.variantModule);
let runtime = null;
let ctx = null;
let hp = null;

function describe(err) {
  if (err && typeof err === 'object') return (err.name ? err.name + ': ' : '') + (err.message || JSON.stringify(err));
  return String(err);
}

function withDeadline(ms, fn) {
  const deadline = Date.now() + ms;
  let interrupted = false;
  runtime.setInterruptHandler(() => (interrupted = Date.now() > deadline));
  try {
    return fn();
  } catch (err) {
    if (interrupted) throw new Error('Projection script took too long to execute (more than ' + ms + ' ms)');
    throw err;
  } finally {
    runtime.removeInterruptHandler();
  }
}

function call(name, args, ms) {
  return withDeadline(ms, () => {
    const fn = ctx.getProp(hp, name);
    const handles = args.map((a) => (a === null ? ctx.null : ctx.newString(a)));
    try {
      const result = ctx.callFunction(fn, hp, ...handles);
      if (result.error) {
        const error = ctx.dump(result.error);
        result.error.dispose();
        throw new Error(describe(error));
      }
      const value = ctx.typeof(result.value) === 'string' ? ctx.getString(result.value) : null;
      result.value.dispose();
      return value;
    } finally {
      for (const h of handles) if (h !== ctx.null) h.dispose();
      fn.dispose();
    }
  });
}

async function compile(message) {
  const qjs = await newQuickJSWASMModuleFromVariant(variant);
  runtime = qjs.newRuntime();
  runtime.setMemoryLimit(message.memoryBytes);
  runtime.setMaxStackSize(message.stackBytes);
  ctx = runtime.newContext();
  const evaluate = (code, file) => {
    const result = ctx.evalCode(code, file);
    if (result.error) {
      const error = ctx.dump(result.error);
      result.error.dispose();
      throw new Error(describe(error));
    }
    result.value.dispose();
  };
  evaluate(message.prelude, 'prelude.js');
  hp = ctx.getProp(ctx.global, '__hp');
  withDeadline(message.compileMs, () => evaluate(message.query, 'projection.js'));
  return call('definition', [], message.compileMs);
}

parentPort.on('message', async (message) => {
  try {
    if (message.type === 'compile') {
      parentPort.postMessage({ id: message.id, definition: await compile(message) });
    } else if (message.type === 'load') {
      for (const [partition, state] of message.states) call('load', [partition, state, null], message.executionMs);
      if (message.shared !== null) call('load', ['', null, message.shared], message.executionMs);
      parentPort.postMessage({ id: message.id });
    } else if (message.type === 'process') {
      const outputs = [];
      for (let i = 0; i < message.events.length; i++) {
        try {
          outputs.push(call('process', [message.events[i]], message.executionMs));
        } catch (err) {
          parentPort.postMessage({ id: message.id, outputs, failedAt: i, error: err.message });
          return;
        }
      }
      parentPort.postMessage({ id: message.id, outputs });
    }
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: err && err.message ? err.message : String(err) });
  }
});
`;
