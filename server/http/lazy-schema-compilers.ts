/**
 * Fastify compiles every route's JSON schema with Ajv while the server starts (about half a second of CPU for
 * the UI API's routes), and loads its serializer compiler (fast-json-stringify, Ajv again) even when no route
 * has a response schema. These factories hand fastify its own compilers (@fastify/ajv-compiler and
 * @fastify/fast-json-stringify-compiler, with the options fastify passes) but compile a route's schema when
 * the route first needs it: the answers are the same, the start is shorter, and Ajv loads only when used.
 */
import { createRequire } from 'node:module';
import type AjvCompiler from '@fastify/ajv-compiler';
import type SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Validate = ReturnType<AjvCompiler.ValidatorCompiler>;

const require = createRequire(import.meta.url);

export function lazyValidatorBuilder(): AjvCompiler.ValidatorFactory {
  let build: AjvCompiler.ValidatorFactory | undefined;
  return (externalSchemas, options) => {
    let compile: AjvCompiler.ValidatorCompiler | undefined;
    return (routeSchema) => {
      let validate: Validate | undefined;
      const lazy = (data: unknown, dataContext?: unknown) => {
        build ??= (require('@fastify/ajv-compiler') as typeof AjvCompiler)();
        compile ??= build(externalSchemas, options);
        validate ??= compile(routeSchema);
        return validate(data, dataContext as Parameters<Validate>[1]);
      };
      // Fastify reads `errors` after a failed call, and passes the parent object (so Ajv may replace a coerced
      // root value) to functions that have a schemaEnv, as Ajv's own have.
      Object.defineProperty(lazy, 'errors', { get: () => validate?.errors });
      Object.defineProperty(lazy, 'schemaEnv', { value: true });
      return lazy as unknown as Validate;
    };
  };
}

export function lazySerializerBuilder(): SerializerSelector.SerializerFactory {
  let build: SerializerSelector.SerializerFactory | undefined;
  return (externalSchemas, options) => {
    let compile: SerializerSelector.SerializerCompiler | undefined;
    return (routeSchema) => {
      let serialize: SerializerSelector.Serializer | undefined;
      return (doc) => {
        build ??= (require('@fastify/fast-json-stringify-compiler') as typeof SerializerSelector)();
        compile ??= build(externalSchemas, options);
        serialize ??= compile(routeSchema);
        return serialize(doc);
      };
    };
  };
}
