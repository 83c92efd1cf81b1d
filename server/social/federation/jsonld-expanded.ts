/** The part of jsonld.js this touches (Fedify's copy, `@fedify/vocab-runtime/jsonld`). */
export interface JsonLdProcessor {
  expand(input: unknown, options?: { keepFreeFloatingNodes?: boolean }): Promise<unknown>;
}

/**
 * Lets jsonld.js skip documents already in expanded form. Fedify's reader expands each object it reads once per
 * class level (an Activity, then a Create, then an Object) and each embedded object again (the Note, its tags,
 * its replies collection and page…), and all but the first of those inputs are the expanded output of an
 * earlier expansion: expanding them again gives the same document (JSON-LD expansion is idempotent on expanded
 * form) at about half the CPU of reading a Mastodon Create. A node object is taken as it is (copied: Fedify edits
 * what it gets) only when it has no context, its keys are absolute IRIs or `@id`/`@type` with absolute IRIs, and
 * every value is an array of such node objects or of plain value objects (a string, number or boolean with a
 * datatype IRI or a language); anything else (a context, a list, a relative or null value, other keywords) goes
 * to jsonld.js as before. `jsonld-expanded.test.ts` compares both on every expansion of every corpus document.
 *
 * Self-contained (nothing outside its body): the inbox's verifier worker evaluates its source text.
 */
export function skipExpandedDocuments(jsonld: JsonLdProcessor): void {
  const marked = jsonld as JsonLdProcessor & { skipsExpandedDocuments?: true };
  if (marked.skipsExpandedDocuments) return;
  marked.skipsExpandedDocuments = true;
  // jsonld.js's own test of an absolute IRI (a blank node identifier passes too).
  const absolute = /^([A-Za-z][A-Za-z0-9+\-.]*|_):[^\s]*$/;
  // Types and property names: IRIs proper (jsonld.js refuses a blank node as a datatype; others go to it).
  const iri = (value: string) => absolute.test(value) && !value.startsWith('_:');
  const valueCopy = (item: Record<string, unknown>): object | undefined => {
    const value = item['@value'];
    if (
      typeof value !== 'string' &&
      typeof value !== 'boolean' &&
      !(typeof value === 'number' && Number.isFinite(value))
    )
      return undefined;
    const copy: Record<string, unknown> = { '@value': value };
    for (const key in item) {
      const v = item[key];
      if (key === '@value') continue;
      if (key === '@type' && typeof v === 'string' && iri(v) && !('@language' in item)) copy[key] = v;
      // jsonld.js writes language tags in lower case.
      else if (key === '@language' && typeof v === 'string' && typeof value === 'string' && !('@type' in item))
        copy[key] = v.toLowerCase();
      else return undefined;
    }
    return copy;
  };
  const nodeCopy = (node: unknown): object | undefined => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    const copy: Record<string, unknown> = {};
    let keys = 0;
    for (const key in node) {
      keys++;
      const value = (node as Record<string, unknown>)[key];
      if (key === '@id') {
        if (typeof value !== 'string' || !absolute.test(value)) return undefined;
        copy[key] = value;
      } else if (key === '@type') {
        // jsonld.js drops an empty one.
        if (!Array.isArray(value) || value.length === 0 || !value.every((t) => typeof t === 'string' && iri(t)))
          return undefined;
        copy[key] = [...value];
      } else {
        if (key.startsWith('@') || !iri(key) || !Array.isArray(value)) return undefined;
        const items: object[] = [];
        for (const item of value) {
          const itemCopy =
            typeof item === 'object' && item !== null && '@value' in item
              ? valueCopy(item as Record<string, unknown>)
              : nodeCopy(item);
          if (itemCopy === undefined) return undefined;
          items.push(itemCopy);
        }
        copy[key] = items;
      }
    }
    return keys === 0 ? undefined : copy;
  };
  const expand = jsonld.expand.bind(jsonld);
  jsonld.expand = async (input, options = {}) => {
    // Fedify's reader asks to keep free-floating nodes: then an expanded node object expands to itself.
    const copy = options.keepFreeFloatingNodes === true ? nodeCopy(input) : undefined;
    return copy === undefined ? expand(input, options) : [copy];
  };
}
