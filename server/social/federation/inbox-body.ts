/**
 * An inbox body's JSON, or undefined when it is none (Fedify answers that itself). Parsed once per delivery:
 * the route reads its actor for the domain policy, the intake the rest. Its own file, free of Fedify: the routes
 * load before Fedify does.
 */
export function inboxBodyJson(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
