/* The parts of the Mastodon OpenAPI document the checks read (openapi.ts loads it, openapi-deviations.ts amends it). */

interface OpenApiOperation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  deprecated?: boolean;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}
