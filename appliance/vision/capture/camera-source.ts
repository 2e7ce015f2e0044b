import type { Logger } from 'pino';
import { type Clock, systemClock } from '../../../shared/clock.ts';
import { frameBytes as frameBytesOf } from '../pixels.ts';
import type { Frame } from '../types.ts';
import { createBackoff } from './backoff.ts';
import { CAPTURE_FORMAT, resolveFfmpegPath, type SpawnedCapture, spawnCapture } from './ffmpeg.ts';
import { createFrameFiller, createFramePool, type FrameFiller } from './frame-pool.ts';
import { createLatestFrameSlot, type FrameHandler } from './latest-frame.ts';

export type CaptureStatus = 'starting' | 'online' | 'offline';

export interface CaptureOptions {
  cameraId: string;
  url: string;
  /** The inference resolution and rate: ffmpeg scales and thins the source to these. */
  width: number;
  height: number;
  fps: number;
  /** File sources only: play again from the start at the end. */
  loop?: boolean;
  log: Logger;
  clock?: Clock;
  random?: () => number;
  /** The binary to run; the static build in node_modules unless set (config passes FFMPEG_PATH). */
  ffmpegPath?: string;
  backoff: {
    initialMs: number;
    maxMs: number;
    /** Online this long, and the next failure starts again from initialMs; 30 s unless set. */
    resetAfterMs?: number;
  };
  /** No frame for this long and the source counts as dead: ffmpeg is killed and started again. */
  stallTimeoutMs: number;
  /** The wait for a new process's first frame (connecting, probing); stallTimeoutMs unless set. */
  firstFrameTimeoutMs?: number;
}

export interface StatusChange {
  cameraId: string;
  status: CaptureStatus;
  previous: CaptureStatus;
  reason: string | undefined;
  at: number;
}

export interface RetryScheduled {
  cameraId: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface CaptureStats {
  status: CaptureStatus;
  framesRead: number;
  framesDelivered: number;
  framesDropped: number;
  /** ffmpeg processes started after the first. */
  restarts: number;
  lastFrameAt: number | undefined;
  /** Frames read a second over the last two seconds. */
  fps: number;
  /** Frame buffers allocated; stays at three or four however slow the consumer is. */
  buffersAllocated: number;
}

interface CaptureEvents {
  status: StatusChange;
  retry: RetryScheduled;
}

const FPS_WINDOW_MS = 2000;
const STDERR_TAIL = 600;
const KILL_GRACE_MS = 2000;

/**
 * One camera's capture: one ffmpeg child turning the source into raw yuv420p frames at the inference
 * size and rate, handed to one consumer with latest-frame-wins.
 *
 * Ownership: `frame.data` is lent to the handler until it returns (or its promise settles); then
 * the buffer goes back to the pool and a later frame overwrites it. A handler that keeps pixels
 * longer must copy them. The buffers are shared memory: posted to a worker, they are not copied.
 */
export function createCapture(options: CaptureOptions) {
  const { cameraId } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log.child({ module: 'vision-capture', cameraId });
  const frameBytes = frameBytesOf(CAPTURE_FORMAT, options.width, options.height);
  const resetAfterMs = options.backoff.resetAfterMs ?? 30_000;
  const backoff = createBackoff(options.backoff, options.random);
  const pool = createFramePool(frameBytes);
  const slot = createLatestFrameSlot<Frame>({
    release: (frame) => pool.give(frame.data),
    onError: (error) => log.warn({ err: error }, 'frame handler failed'),
  });
  const listeners = {
    status: new Set<(e: StatusChange) => void>(),
    retry: new Set<(e: RetryScheduled) => void>(),
  };
  const times = new Float64Array(Math.ceil((options.fps * FPS_WINDOW_MS) / 1000) * 2 + 8);

  let status: CaptureStatus = 'offline';
  let running = false;
  let generation = 0;
  let current: (SpawnedCapture & { filler: FrameFiller }) | undefined;
  let stallTimer: NodeJS.Timeout | undefined;
  let stallMs = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let framesRead = 0;
  let restarts = 0;
  let lastFrameAt: number | undefined;
  let onlineSince = 0;
  let offlineSince = 0;
  let admit: ((frame: Frame) => boolean) | undefined;

  const now = () => clock.now().getTime();

  function emit<K extends keyof CaptureEvents>(event: K, payload: CaptureEvents[K]) {
    // A listener that throws must not stop the capture from restarting.
    for (const listener of listeners[event] as Set<(e: CaptureEvents[K]) => void>) {
      try {
        listener(payload);
      } catch (error) {
        log.warn({ err: error, event }, 'capture listener failed');
      }
    }
  }

  function setStatus(next: CaptureStatus, reason?: string) {
    const previous = status;
    if (next === previous) return;
    status = next;
    emit('status', { cameraId, status: next, previous, reason, at: now() });
  }

  function frameRead(data: Buffer) {
    framesRead += 1;
    const at = now();
    lastFrameAt = at;
    times[framesRead % times.length] = at;
    armStall(options.stallTimeoutMs);
    if (status !== 'online') cameOnline(at);
    const frame: Frame = {
      cameraId,
      seq: framesRead,
      capturedAt: at,
      width: options.width,
      height: options.height,
      data,
      format: CAPTURE_FORMAT,
    };
    if (admitted(frame)) slot.offer(frame);
    else pool.give(data);
  }

  /** Whether the consumer's `admit` lets the frame in; one that throws lets it in. */
  function admitted(frame: Frame) {
    if (!admit) return true;
    try {
      return admit(frame);
    } catch (error) {
      log.warn({ err: error }, 'frame admission failed');
      return true;
    }
  }

  function cameOnline(at: number) {
    if (status === 'offline') {
      log.info({ downMs: at - offlineSince, attempts: backoff.attempts }, 'camera source back online');
    } else {
      log.info({ width: options.width, height: options.height, fps: options.fps }, 'camera source online');
    }
    onlineSince = at;
    setStatus('online');
  }

  /** Per frame this only refreshes one timer; a new timer is made when the wait's length changes. */
  function armStall(ms: number) {
    if (stallTimer && ms === stallMs) {
      stallTimer.refresh();
      return;
    }
    clearTimeout(stallTimer);
    const gen = generation;
    stallMs = ms;
    stallTimer = setTimeout(() => fail(gen, `no frame for ${ms} ms`), ms);
  }

  function launch() {
    const gen = ++generation;
    // Each process fills its own frames: one that is stopped gives its partial frame back.
    const filler = createFrameFiller(frameBytes, pool, (data) => {
      if (gen === generation) frameRead(data);
      else pool.give(data);
    });
    let spawned: SpawnedCapture;
    try {
      spawned = spawnCapture({
        url: options.url,
        width: options.width,
        height: options.height,
        fps: options.fps,
        loop: options.loop ?? false,
        ffmpegPath: options.ffmpegPath ?? resolveFfmpegPath(),
        sink: filler,
      });
    } catch (error) {
      // No FIFO (a full temp dir, no mkfifo): offline, and tried again like any failed start.
      queueMicrotask(() => fail(gen, `ffmpeg could not start: ${(error as Error).message}`));
      return;
    }
    current = { ...spawned, filler };
    let stderr = '';
    spawned.frames.on('error', (error) => fail(gen, `reading ffmpeg failed: ${error.message}`));
    spawned.stderr.setEncoding('utf8');
    spawned.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
    });
    spawned.child.on('error', (error) => fail(gen, `ffmpeg could not run: ${error.message}`));
    // Ended once ffmpeg has exited and the frames it wrote before are read (the FIFO's end).
    const exited = new Promise<string>((resolve) =>
      spawned.child.on('close', (code, signal) => {
        const detail = stderr.trim().split('\n').slice(-2).join(' | ');
        resolve(`ffmpeg ended (${code ?? signal})${detail ? `: ${detail}` : ''}`);
      }),
    );
    const drained = new Promise<void>((resolve) => spawned.frames.once('close', () => resolve()));
    void Promise.all([exited, drained]).then(([reason]) => fail(gen, reason));
    // A stall timer made for an older process must not fire for this one.
    clearTimeout(stallTimer);
    stallTimer = undefined;
    armStall(options.firstFrameTimeoutMs ?? options.stallTimeoutMs);
  }

  function kill(spawned: (SpawnedCapture & { filler: FrameFiller }) | undefined) {
    if (!spawned) return;
    spawned.frames.destroy();
    spawned.filler.dispose();
    if (spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
    spawned.child.kill('SIGKILL');
  }

  function fail(gen: number, reason: string) {
    if (gen !== generation || !running) return;
    generation += 1;
    clearTimeout(stallTimer);
    stallTimer = undefined;
    kill(current);
    current = undefined;
    const at = now();
    if (status === 'online' && at - onlineSince >= resetAfterMs) backoff.reset();
    if (status !== 'offline') {
      offlineSince = at;
      log.warn({ reason, framesRead }, 'camera source offline');
    }
    setStatus('offline', reason);
    scheduleRetry(reason);
  }

  function scheduleRetry(reason: string) {
    const delayMs = backoff.next();
    const attempt = backoff.attempts;
    log.debug({ attempt, delayMs, reason }, 'camera source retry scheduled');
    emit('retry', { cameraId, attempt, delayMs, reason });
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (!running) return;
      restarts += 1;
      launch();
    }, delayMs);
  }

  function fps(): number {
    const since = now() - FPS_WINDOW_MS;
    let count = 0;
    for (const at of times) if (at > since) count += 1;
    return (count * 1000) / FPS_WINDOW_MS;
  }

  return {
    start() {
      if (running) return;
      running = true;
      backoff.reset();
      setStatus('starting');
      launch();
    },

    /** Ends the child (SIGTERM, then SIGKILL after a grace period); resolves once it is gone. */
    async stop(): Promise<void> {
      if (!running) return;
      running = false;
      generation += 1;
      clearTimeout(stallTimer);
      clearTimeout(retryTimer);
      slot.clear();
      const stopping = current;
      current = undefined;
      setStatus('offline', 'stopped');
      if (!stopping || stopping.child.exitCode !== null || stopping.child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => stopping.child.kill('SIGKILL'), KILL_GRACE_MS);
        stopping.child.once('close', () => {
          clearTimeout(force);
          resolve();
        });
        stopping.child.kill('SIGTERM');
      });
    },

    /**
     * The one consumer; replaces any before it. See the ownership rule above. `admit` runs on every
     * frame as it is read (the buffer lent to it while it runs): a frame it turns down is given
     * back at once, and neither waits for the handler nor replaces a frame waiting for it.
     */
    onFrame(handler: FrameHandler<Frame>, admitFrame?: (frame: Frame) => boolean) {
      slot.setHandler(handler);
      admit = admitFrame;
      return () => {
        slot.setHandler(undefined);
        admit = undefined;
      };
    },

    on<K extends keyof CaptureEvents>(event: K, listener: (payload: CaptureEvents[K]) => void) {
      (listeners[event] as Set<(e: CaptureEvents[K]) => void>).add(listener);
      return () => (listeners[event] as Set<(e: CaptureEvents[K]) => void>).delete(listener);
    },

    get status(): CaptureStatus {
      return status;
    },

    stats(): CaptureStats {
      return {
        status,
        framesRead,
        framesDelivered: slot.delivered,
        framesDropped: slot.dropped,
        restarts,
        lastFrameAt,
        fps: fps(),
        buffersAllocated: pool.allocated,
      };
    },
  };
}

export type Capture = ReturnType<typeof createCapture>;
