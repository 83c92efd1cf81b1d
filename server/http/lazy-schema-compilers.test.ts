import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazySerializerBuilder, lazyValidatorBuilder } from './lazy-schema-compilers.ts';

// Coercion, defaults, removed extra properties, the error answers and the response serializer (which writes only
// the properties its schema names) must not change with the compile time.
const schema = {
  querystring: {
    type: 'object',
    properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, tag: { type: 'string' } },
  },
  params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  body: {
    type: 'object',
    additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['name'],
  },
  response: {
    200: {
      type: 'object',
      properties: {
        params: { type: 'object', additionalProperties: true },
        query: { type: 'object', additionalProperties: true },
        body: { type: 'object', additionalProperties: true },
      },
    },
  },
};

async function serve(lazy: boolean): Promise<{ app: FastifyInstance; url: string; compiled: () => number }> {
  let compiled = 0;
  const app = Fastify({
    ...(lazy
      ? {
          schemaController: {
            compilersFactory: { buildValidator: lazyValidatorBuilder(), buildSerializer: lazySerializerBuilder() },
          },
        }
      : {}),
    ajv: { onCreate: () => void compiled++ },
  });
  app.post('/items/:id', { schema }, async (req) => ({
    params: req.params,
    query: req.query,
    body: req.body,
    notInTheSchema: 'left out by the serializer',
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, compiled: () => compiled };
}

describe('route schemas compiled at their first request', () => {
  let eager: Awaited<ReturnType<typeof serve>>;
  let lazy: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    eager = await serve(false);
    lazy = await serve(true);
  });
  afterAll(async () => {
    await eager?.app.close();
    await lazy?.app.close();
  });

  it('makes no Ajv instance before a request needs one', async () => {
    expect(eager.compiled()).toBe(1);
    expect(lazy.compiled()).toBe(0);
  });

  const cases: [string, string, unknown][] = [
    ['coerces, fills defaults and drops nothing it should keep', '/items/7?tag=x', { name: 'a', tags: ['t'] }],
    ['coerces a lone query value into the integer', '/items/7?limit=5', { name: 'a' }],
    ['refuses a missing required property', '/items/7', { tags: [] }],
    ['refuses an out-of-range query value', '/items/7?limit=1000', { name: 'a' }],
    ['refuses a parameter of the wrong type', '/items/seven', { name: 'a' }],
    ['drops an unknown property', '/items/7', { name: 'a', extra: true }],
    ['refuses a body of the wrong type', '/items/7', ['a']],
  ];
  for (const [title, path, body] of cases) {
    it(`answers as fastify's own compiler does: ${title}`, async () => {
      const ask = async (base: string) => {
        const r = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: await r.json() };
      };
      const expected = await ask(eager.url);
      expect(expected.status).toBe(title.startsWith('refuses') ? 400 : 200);
      expect(expected.body).not.toHaveProperty('notInTheSchema');
      expect(await ask(lazy.url)).toEqual(expected);
    });
  }

  it('then makes its one Ajv instance', () => {
    expect(lazy.compiled()).toBe(1);
  });
});
