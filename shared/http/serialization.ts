import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Serialize = (data: unknown) => string;
type Factory = ReturnType<typeof SerializerSelector>;

const select = SerializerSelector();

/**
 * Response serializers by options and schema text, for every app of the process: fast-json-stringify
 * compiles a schema once, however many times an app is built (the tests build hundreds). A
 * serializer is a pure function of its schema and options.
 */
const compiled = new Map<string, Serialize>();

export const buildResponseSerializer = (): Factory => (externalSchemas, options) => {
  const compile = select(externalSchemas, options);
  const context = JSON.stringify([externalSchemas, options]);
  return (route) => {
    const key = `${context}${JSON.stringify(route.schema)}`;
    let serialize = compiled.get(key);
    if (!serialize) {
      serialize = compile(route) as Serialize;
      compiled.set(key, serialize);
    }
    return serialize;
  };
};
