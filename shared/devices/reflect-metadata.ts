/**
 * The part of the Reflect metadata API (`defineMetadata`, `getOwnMetadata`, `getMetadata`) that
 * tsyringe checks for and calls when @peculiar/x509 registers its algorithms. Nothing of ours uses
 * decorators; this only lets the library load. A full polyfill (reflect-metadata) installed first
 * wins: nothing is replaced when the API is already there.
 */
type Metadata = Map<unknown, unknown>;

const byTarget = new WeakMap<object, Metadata>();
const api = Reflect as unknown as Record<string, unknown>;

if (typeof api.getMetadata !== 'function') {
  api.defineMetadata = (key: unknown, value: unknown, target: object) => {
    const own = byTarget.get(target) ?? new Map();
    own.set(key, value);
    byTarget.set(target, own);
  };
  api.getOwnMetadata = (key: unknown, target: object) => byTarget.get(target)?.get(key);
  // Metadata is inherited along the prototype chain, as the proposal specifies.
  api.getMetadata = (key: unknown, target: object) => {
    for (let at: object | null = target; at !== null; at = Object.getPrototypeOf(at)) {
      const own = byTarget.get(at);
      if (own?.has(key)) return own.get(key);
    }
    return undefined;
  };
}
