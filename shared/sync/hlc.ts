/**
 * Hybrid logical clock (Kulkarni et al., 2014) for ordering edits made on the appliance and in the
 * cloud. A stamp stays close to wall time, so it is readable and usable for "newest wins", yet never
 * goes backwards and always orders after every stamp its node has seen, whatever the wall clocks do.
 *
 * Stamps are `<wall ms, 13 digits>-<counter, 4 lowercase hex>-<node id>`. The fixed-width head
 * makes plain string comparison causal order; the node id breaks ties, so two stamps are never equal
 * unless one node issued them. Node ids may contain '-' (UUIDs), so everything after the second '-'
 * is the node. They are limited to ASCII letters, digits and `._:-` so that JavaScript, SQLite and
 * byte-wise collations all sort stamps the same way (PostgreSQL columns need `COLLATE "C"`).
 */

export const HLC_PATTERN = '^[0-9]{13}-[0-9a-f]{4}-[0-9A-Za-z._:-]+$';

const hlcRegExp = new RegExp(HLC_PATTERN);
const nodeRegExp = /^[0-9A-Za-z._:-]+$/;
const MAX_WALL = 9_999_999_999_999;
const MAX_COUNTER = 0xffff;
const DEFAULT_MAX_DRIFT_MS = 24 * 60 * 60 * 1000;

/** A remote stamp further ahead of the local clock than `maxDriftMs`: not taken in. */
export class HlcDriftError extends Error {
  override name = 'HlcDriftError';
}

export interface HlcParts {
  wall: number;
  counter: number;
  node: string;
}

export interface Hlc {
  /** A stamp for a local event, greater than every stamp this clock has issued or received. */
  tick(): string;
  /** Merges a stamp from another node; returns a new stamp greater than it and than our last one. */
  receive(remote: string): string;
  /** The newest stamp issued or merged so far, under this node's id. */
  last(): string;
}

export interface HlcOptions {
  /**
   * Remote stamps further ahead of our wall clock are refused (HlcDriftError): one bad clock would
   * drag us along. `Infinity` takes every stamp in.
   */
  maxDriftMs?: number;
  /** Seed after a restart (e.g. the newest stamp in the database) so the clock never goes back. */
  last?: string;
}

export const isHlc = (value: unknown): value is string => typeof value === 'string' && hlcRegExp.test(value);

export const compareHlc = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function parseHlc(stamp: string): HlcParts {
  if (!isHlc(stamp)) throw new Error(`Malformed HLC stamp: ${JSON.stringify(stamp)}`);
  return {
    wall: Number(stamp.slice(0, 13)),
    counter: Number.parseInt(stamp.slice(14, 18), 16),
    node: stamp.slice(19),
  };
}

export function formatHlc({ wall, counter, node }: HlcParts): string {
  return `${String(wall).padStart(13, '0')}-${counter.toString(16).padStart(4, '0')}-${node}`;
}

export function createHlc(nodeId: string, now: () => number = Date.now, options: HlcOptions = {}): Hlc {
  if (!nodeRegExp.test(nodeId)) throw new Error(`Invalid HLC node id: ${JSON.stringify(nodeId)}`);
  const maxDriftMs = options.maxDriftMs ?? DEFAULT_MAX_DRIFT_MS;
  const seed = options.last === undefined ? undefined : parseHlc(options.last);
  let wall = seed?.wall ?? 0;
  let counter = seed?.counter ?? 0;

  const physical = (): number => Math.floor(now());

  // Both branches end here: a counter that ran out borrows the next millisecond, which still orders
  // after everything seen because every wall involved was at most the current one.
  const advance = (nextWall: number, nextCounter: number): string => {
    wall = nextCounter > MAX_COUNTER ? nextWall + 1 : nextWall;
    counter = nextCounter > MAX_COUNTER ? 0 : nextCounter;
    if (wall > MAX_WALL) throw new Error('HLC wall time is beyond the stamp format');
    return formatHlc({ wall, counter, node: nodeId });
  };

  return {
    tick() {
      const pt = physical();
      if (pt > wall) return advance(pt, 0);
      return advance(wall, counter + 1);
    },

    receive(remote) {
      const theirs = parseHlc(remote);
      const pt = physical();
      if (theirs.wall - pt > maxDriftMs) {
        throw new HlcDriftError(`HLC stamp ${remote} is more than ${maxDriftMs} ms ahead of the local clock`);
      }
      const nextWall = Math.max(wall, theirs.wall, pt);
      if (nextWall === wall && nextWall === theirs.wall) {
        return advance(nextWall, Math.max(counter, theirs.counter) + 1);
      }
      if (nextWall === wall) return advance(nextWall, counter + 1);
      if (nextWall === theirs.wall) return advance(nextWall, theirs.counter + 1);
      return advance(nextWall, 0);
    },

    last: () => formatHlc({ wall, counter, node: nodeId }),
  };
}
