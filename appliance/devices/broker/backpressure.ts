/**
 * What the broker holds for a subscriber that reads more slowly than its publishers send. aedes
 * acknowledges a QoS 1 publish before routing it, so without a bound every message the publishers
 * can send faster than the subscriber reads waits in that subscriber's socket buffer: megabytes
 * of Buffers in the broker (and their encrypted copies on TLS) for a busy store, where a
 * subscriber's own reading speed should set the pace.
 *
 * Here, while a connection has more than `congestedBytes` unsent, the broker reads no more from
 * any other connection (intake.ts asks before every batch), so publishers wait in their own TCP
 * windows and the memory held stays at about `congestedBytes` and one batch per publisher. Only
 * a subscriber that drains holds the others back: one that has not drained for `stallMs` is left
 * to the limits of delivery.ts (QoS 0 dropped, cut past its queue bounds or drainTimeout) and
 * the others read on, so a frozen screen costs the store one pause of `stallMs`.
 */
import type { Writable } from 'node:stream';

export interface BackpressureOptions {
  /** Unsent bytes past which a connection holds back the intake of the others. */
  congestedBytes: number;
  /** How long a congested connection that does not drain holds them back. */
  stallMs: number;
}

/** 256 KiB: about a thousand of the benchmark's messages, a few seconds of a busy store's telemetry. */
export const DEFAULT_CONGESTED_BYTES = 256 * 1024;
export const DEFAULT_STALL_MS = 500;

interface Watched {
  /** When it was first seen congested (performance.now()); -1 while it is not. */
  since: number;
  listening: boolean;
  onDrain: () => void;
}

export type Backpressure = ReturnType<typeof createBackpressure>;

export function createBackpressure(options: BackpressureOptions) {
  const watched = new Map<Writable, Watched>();
  const waiting = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;

  function wake() {
    clearTimeout(timer);
    timer = undefined;
    const resumes = [...waiting];
    waiting.clear();
    for (const resume of resumes) resume();
  }

  /** The congested connection, other than `reader`, that holds the intake back now, if any. */
  function holder(reader: Writable, now: number) {
    for (const [conn, state] of watched) {
      if (conn === reader || conn.writableLength <= options.congestedBytes) {
        state.since = -1;
        continue;
      }
      if (state.since < 0) state.since = now;
      if (now - state.since >= options.stallMs) continue;
      if (!state.listening) {
        state.listening = true;
        conn.once('drain', state.onDrain);
      }
      return state;
    }
    return undefined;
  }

  return {
    /** Counts `conn`'s unsent bytes from now until it closes. */
    watch(conn: Writable) {
      const state: Watched = {
        since: -1,
        listening: false,
        onDrain: () => {
          state.listening = false;
          wake();
        },
      };
      watched.set(conn, state);
      conn.once('close', () => {
        watched.delete(conn);
        wake();
      });
    },
    /** True when `reader` may read now; otherwise `resume` is called once it may try again. */
    mayRead(reader: Writable, resume: () => void) {
      const now = performance.now();
      const held = holder(reader, now);
      if (!held) return true;
      waiting.add(resume);
      timer ??= setTimeout(wake, Math.max(1, options.stallMs - (now - held.since)));
      return false;
    },
  };
}
