/**
 * The projection API as it exists inside the sandbox: plain ECMAScript evaluated in QuickJS before the
 * user's query. The definition-time functions (`fromAll`, `options`, …) record the source definition and
 * are removed once the query ran, as EventStoreDB does; `emit`, `linkTo`, `linkStreamTo` and `log`
 * collect into buffers the host reads after each event. Everything crosses the boundary as JSON text.
 */
export const PRELUDE = `
(function () {
  'use strict';
  var def = { allStreams: false, streams: [], categories: [], allEvents: true, events: [], byStream: false,
    byCustomPartitions: false, options: { includeLinks: false, reorderEvents: false, processingLag: 0,
      resultStreamName: null, partitionResultStreamNamePattern: null, isBiState: false,
      definesStateTransform: false, producesResults: false, definesFold: false, handlesDeletedNotifications: false } };
  var handlers = Object.create(null);
  var anyHandler = null, initFn = null, initSharedFn = null, createdFn = null, deletedFn = null, partitionFn = null;
  var transforms = [];
  var states = new Map();
  var shared = undefined;
  var emitted = null;
  var logs = [];
  function restrict(allowed) { var o = {}; allowed.forEach(function (k) { o[k] = api[k]; }); return o; }
  var api = {};
  var afterTransform = ['transformBy', 'filterBy', 'outputState', 'outputTo'];
  api.when = function (h) {
    if (!h || typeof h !== 'object') throw new Error('when() expects an object of handlers');
    Object.keys(h).forEach(function (k) {
      var fn = h[k];
      if (typeof fn !== 'function') throw new Error('The handler of ' + k + ' is not a function');
      if (k === '$init') initFn = fn;
      else if (k === '$initShared') { initSharedFn = fn; def.options.isBiState = true; }
      else if (k === '$any') { anyHandler = fn; def.allEvents = true; }
      else if (k === '$created') createdFn = fn;
      else if (k === '$deleted') { deletedFn = fn; def.options.handlesDeletedNotifications = true; }
      else { handlers[k] = fn; def.events.push(k); def.allEvents = false; }
    });
    if (anyHandler && def.events.length > 0 && def.allEvents) throw new Error('Both AllEvents and specific event filters cannot be set');
    def.options.definesFold = true;
    return restrict(['transformBy', 'filterBy', 'outputState', 'outputTo', '$defines_state_transform']);
  };
  api.partitionBy = function (fn) {
    if (typeof fn !== 'function') throw new Error('partitionBy() expects a function');
    partitionFn = fn; def.byCustomPartitions = true; return restrict(['when']);
  };
  api.foreachStream = function () { def.byStream = true; return restrict(['when']); };
  api.outputState = function () { def.options.producesResults = true; return restrict(['transformBy', 'filterBy', 'outputTo']); };
  api.transformBy = function (fn) {
    transforms.push({ filter: false, fn: fn });
    def.options.definesStateTransform = true; def.options.producesResults = true; return restrict(afterTransform);
  };
  api.filterBy = function (fn) {
    transforms.push({ filter: true, fn: fn });
    def.options.definesStateTransform = true; def.options.producesResults = true; return restrict(afterTransform);
  };
  api.outputTo = function (stream, pattern) {
    def.options.resultStreamName = String(stream);
    if (pattern !== undefined) def.options.partitionResultStreamNamePattern = String(pattern);
    def.options.producesResults = true;
  };
  api.$defines_state_transform = function () { def.options.definesStateTransform = true; def.options.producesResults = true; };
  function names(args) { return Array.isArray(args[0]) ? args[0].map(String) : Array.prototype.slice.call(args).map(String); }
  var g = globalThis;
  g.fromAll = function () { def.allStreams = true; return restrict(['when', 'partitionBy', 'outputState', 'foreachStream']); };
  g.fromStream = function (s) { def.streams.push(String(s)); return restrict(['when', 'partitionBy', 'outputState']); };
  g.fromStreams = function () { names(arguments).forEach(function (s) { def.streams.push(s); }); return restrict(['when', 'partitionBy', 'outputState']); };
  g.fromCategory = function () {
    var list = names(arguments);
    list.forEach(function (c) { def.categories.push(c); });
    return restrict(list.length === 1 ? ['when', 'partitionBy', 'outputState', 'foreachStream'] : ['when', 'partitionBy', 'outputState']);
  };
  g.fromCategories = g.fromCategory;
  var optionTypes = { $includelinks: ['includeLinks', 'boolean'], reorderevents: ['reorderEvents', 'boolean'],
    processinglag: ['processingLag', 'number'], resultstreamname: ['resultStreamName', 'string'], bistate: ['isBiState', 'boolean'] };
  g.options = function (o) {
    Object.keys(o || {}).forEach(function (k) {
      var known = optionTypes[k.toLowerCase()];
      if (!known) throw new Error('Unrecognized option: ' + k);
      if (typeof o[k] !== known[1]) throw new Error('Invalid value for option ' + k);
      def.options[known[0]] = o[k];
    });
  };
  function collecting() { if (!emitted) throw new Error('emit, linkTo and linkStreamTo are only available in handlers'); return emitted; }
  function nonBlank(v, what) { if (typeof v !== 'string' || v.trim() === '') throw new Error(what + ' must be a non-empty string'); }
  function extraMetadata(m) {
    if (m === undefined || m === null) return undefined;
    if (typeof m !== 'object') throw new Error('metadata must be an object');
    var out = {};
    Object.keys(m).forEach(function (k) { if (m[k] !== undefined) out[k] = m[k]; });
    return out;
  }
  g.emit = function (stream, type, body, metadata) {
    nonBlank(stream, 'The stream'); nonBlank(type, 'The event type');
    if (!body || typeof body !== 'object') throw new Error('The body of an emitted event must be an object');
    collecting().push({ kind: 'emit', stream: stream, type: type, data: JSON.stringify(body), metadata: extraMetadata(metadata) });
  };
  g.linkTo = function (stream, e, metadata) {
    nonBlank(stream, 'The stream');
    if (!e || typeof e.sequenceNumber !== 'number' || typeof e.streamId !== 'string') throw new Error('linkTo needs an event');
    collecting().push({ kind: 'link', stream: stream, data: e.sequenceNumber + '@' + e.streamId, metadata: extraMetadata(metadata) });
  };
  g.linkStreamTo = function (stream, other, metadata) {
    nonBlank(stream, 'The stream'); nonBlank(other, 'The linked stream');
    collecting().push({ kind: 'stream', stream: stream, data: other, metadata: extraMetadata(metadata) });
  };
  g.copyTo = function () {};
  g.log = function () {
    if (logs.length < 100) logs.push(Array.prototype.slice.call(arguments).map(function (a) {
      return typeof a === 'string' ? a : JSON.stringify(a);
    }).join(' ').slice(0, 2000));
  };
  function initial() { return initFn ? initFn() : {}; }
  function serialize(v) { return v === undefined || v === null ? null : JSON.stringify(v); }
  function resultOf(state) {
    var r = state;
    for (var i = 0; i < transforms.length; i++) {
      var t = transforms[i];
      if (t.filter) { if (t.fn(r) !== true) return null; }
      else r = t.fn(r);
    }
    return serialize(r);
  }
  function lazyJson(o, name, raw) {
    var cached, done = false;
    Object.defineProperty(o, name, { enumerable: true, get: function () {
      if (!done) { cached = raw === null ? null : JSON.parse(raw); done = true; }
      return cached;
    } });
  }
  function envelope(x, partition) {
    var e = { streamId: x.streamId, sequenceNumber: x.sequenceNumber, eventType: x.eventType, eventId: x.eventId,
      isJson: x.isJson, bodyRaw: x.bodyRaw, metadataRaw: x.metadataRaw, linkMetadataRaw: x.linkMetadataRaw,
      partition: partition, category: x.category, created: x.created };
    if (x.isJson) { lazyJson(e, 'body', x.bodyRaw); lazyJson(e, 'data', x.bodyRaw); }
    lazyJson(e, 'metadata', x.metadataRaw);
    lazyJson(e, 'linkMetadata', x.linkMetadataRaw);
    return Object.freeze(e);
  }
  // EventStoreDB calls $deleted(state, null, partition, isSoftDelete) and always passes false; a returned
  // value other than undefined becomes the state, as for the other handlers.
  function deleted(partition) {
    var created = !states.has(partition);
    var state = created ? initial() : states.get(partition);
    emitted = [];
    try {
      var next = deletedFn(state, null, partition, false);
      if (next !== undefined) state = next;
      states.set(partition, state);
      var out = { partition: partition, created: created, state: serialize(state), emitted: [] };
      if (def.options.producesResults) out.result = resultOf(state);
      return JSON.stringify(out);
    } finally {
      emitted = null;
    }
  }
  g.__hp = {
    definition: function () {
      ['fromAll', 'fromStream', 'fromStreams', 'fromCategory', 'fromCategories', 'options'].forEach(function (k) { delete g[k]; });
      if (!def.allStreams && def.streams.length === 0 && def.categories.length === 0) throw new Error('None of streams and categories are included');
      if (def.streams.length > 0 && def.categories.length > 0) throw new Error('Streams and categories cannot be included in a filter at the same time');
      if (def.options.handlesDeletedNotifications && !def.byStream) throw new Error('Deleted stream notifications are only supported with foreachStream()');
      if (def.options.handlesDeletedNotifications && def.options.isBiState) throw new Error('Cannot handle deletes in bi-state projections');
      if (def.options.reorderEvents) {
        if (def.allStreams) throw new Error('Event reordering cannot be used with fromAll()');
        if (def.streams.length < 2) throw new Error('Event reordering is only available in fromStreams([]) projections');
        if (def.options.processingLag < 50) throw new Error('Event reordering requires processing lag at least of 50ms');
      }
      return JSON.stringify(def);
    },
    load: function (partition, stateJson, sharedJson) {
      if (stateJson !== null) states.set(partition, JSON.parse(stateJson));
      if (sharedJson !== null) shared = JSON.parse(sharedJson);
    },
    reset: function () { states = new Map(); shared = undefined; },
    process: function (json) {
      var x = JSON.parse(json);
      if (x.deleted) return deleted(x.partition);
      var partition = x.partition;
      if (partitionFn) {
        var p = partitionFn(envelope(x, ''));
        if (typeof p === 'number') p = String(p);
        if (typeof p !== 'string') return '{"skip":true}';
        partition = p;
      }
      var e = envelope(x, partition);
      var created = !states.has(partition);
      var state = created ? initial() : states.get(partition);
      emitted = [];
      logs = [];
      try {
        if (created && createdFn) { var c = createdFn(state, e); if (c !== undefined) state = c; }
        var h = handlers[e.eventType] || anyHandler;
        if (def.options.isBiState) {
          if (shared === undefined) shared = initSharedFn ? initSharedFn() : {};
          var pair = [state, shared];
          var r = h ? h(pair, e) : undefined;
          if (r !== undefined) pair = r;
          state = pair[0]; shared = pair[1];
        } else if (h) {
          var next = h(state, e);
          if (next !== undefined) state = next;
        } else state = e.isJson ? e.body : e.bodyRaw;
        states.set(partition, state);
        var out = { partition: partition, created: created, state: serialize(state), emitted: emitted, logs: logs };
        if (def.options.isBiState) out.shared = serialize(shared);
        if (def.options.producesResults) out.result = resultOf(state);
        return JSON.stringify(out);
      } finally {
        emitted = null;
      }
    }
  };
})();
`;
