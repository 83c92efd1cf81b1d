export function EventLogView() {
  return (
    <section aria-labelledby="eventlog-title" className="view">
      <h1 id="eventlog-title">Event log</h1>
      <p className="muted">Streams, events and the global log of the event store.</p>
    </section>
  );
}
