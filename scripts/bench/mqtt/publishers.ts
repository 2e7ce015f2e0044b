/**
 * The benchmark's publishers, in a process of their own (forked by the bench, asked over IPC, see
 * protocol.ts): one mqtt.js client per publisher, each on its own topic. Saturated and burst modes
 * keep `window` messages per publisher outstanding (written for QoS 0, acknowledged for QoS 1);
 * paced mode sends on an even schedule and stamps each message when it actually leaves.
 */
import { connectAsync, type MqttClient } from 'mqtt';
import { clientOptions, noDelay } from './clients.ts';
import { serveRequests } from './control.ts';
import { encodeMessage, stamp } from './payload.ts';
import type { PublisherRequest, PublisherSpec, PublishMode, PublishResult, QoS } from './protocol.ts';
import { percentiles, Samples } from './stats.ts';

interface Publisher {
  index: number;
  client: MqttClient;
  topic: string;
  /** The next sequence number: messages 0..next-1 of this case have been handed to the client. */
  next: number;
}

interface Run {
  runId: number;
  qos: QoS;
  size: number;
  errors: number;
  firstError: string | null;
}

let publishers: Publisher[] = [];

async function connect(specs: PublisherSpec[]) {
  await disconnect();
  const clients = await Promise.all(
    specs.map(async (spec) => noDelay(await connectAsync(spec.url, clientOptions(spec), false))),
  );
  publishers = clients.map((client, index) => {
    client.on('error', () => {}); // counted where a publish fails
    return { index, client, topic: specs[index]!.topic, next: 0 };
  });
}

async function disconnect() {
  await Promise.all(publishers.map(({ client }) => client.endAsync(true).catch(() => {})));
  publishers = [];
}

function failed(run: Run, error: unknown) {
  run.errors += 1;
  run.firstError ??= (error as Error).message ?? String(error);
}

function send(run: Run, publisher: Publisher) {
  const payload = encodeMessage(run.size, run.runId, publisher.index, publisher.next);
  publisher.next += 1;
  return publisher.client.publishAsync(publisher.topic, payload, { qos: run.qos });
}

/** `window` lanes per publisher, each sending its next message once its previous one is done. */
async function windowed(run: Run, window: number, more: (publisher: Publisher) => boolean) {
  const lane = async (publisher: Publisher) => {
    while (more(publisher) && publisher.client.connected) {
      await send(run, publisher).catch((error: unknown) => failed(run, error));
    }
  };
  await Promise.all(publishers.flatMap((publisher) => Array.from({ length: window }, () => lane(publisher))));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Slot k is due `k / rate` seconds after the start and goes to publisher k mod n; late slots go at once. */
async function paced(run: Run, seconds: number, rate: number) {
  const interval = 1000 / rate;
  const total = Math.round(seconds * rate);
  const late = new Samples();
  const outstanding = new Set<Promise<void>>();
  const start = performance.now() + 5;
  let slot = 0;
  while (slot < total) {
    const now = performance.now();
    for (; slot < total && start + slot * interval <= now; slot += 1) {
      late.push(performance.now() - (start + slot * interval));
      const sent: Promise<void> = send(run, publishers[slot % publishers.length]!).then(
        () => {},
        (error: unknown) => failed(run, error),
      );
      outstanding.add(sent);
      sent.finally(() => outstanding.delete(sent));
    }
    if (slot < total) await sleep(Math.max(0, start + slot * interval - performance.now()));
  }
  await Promise.all(outstanding);
  return percentiles(late.view());
}

async function publish(runId: number, qos: QoS, size: number, mode: PublishMode): Promise<PublishResult> {
  if (publishers.length === 0) throw new Error('not connected');
  for (const publisher of publishers) publisher.next = 0;
  const run: Run = { runId, qos, size, errors: 0, firstError: null };
  const startedAt = stamp();
  let late = null;
  if (mode.kind === 'saturated') {
    const deadline = performance.now() + mode.seconds * 1000;
    await windowed(run, mode.window, () => performance.now() < deadline);
  } else if (mode.kind === 'burst') {
    await windowed(run, mode.window, (publisher) => publisher.next < mode.perPublisher);
  } else {
    late = await paced(run, mode.seconds, mode.rate);
  }
  return {
    sent: publishers.map((publisher) => publisher.next),
    errors: run.errors,
    first_error: run.firstError,
    started_at: startedAt,
    ended_at: stamp(),
    late_ms: late,
  };
}

serveRequests<PublisherRequest>(async (request) => {
  switch (request.op) {
    case 'now':
      return stamp();
    case 'connect':
      return connect(request.publishers);
    case 'publish':
      return publish(request.runId, request.qos, request.size, request.mode);
    case 'disconnect':
      return disconnect();
  }
});
