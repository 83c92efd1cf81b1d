export function SubscriptionsView() {
  return (
    <section aria-labelledby="subscriptions-title" className="view">
      <h1 id="subscriptions-title">Subscriptions</h1>
      <p className="muted">Connected clients, live subscriptions and persistent subscription groups.</p>
    </section>
  );
}
