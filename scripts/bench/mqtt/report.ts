/** The MQTT benchmark's report: figures per broker and case, the goals, and a summary table. */
import { round } from '../lib/load.ts';
import { ANCHOR, type BrokerName, type MosquittoName } from './brokers.ts';
import type { CaseMeasurement, CaseName } from './cases.ts';
import type { MqttPlan } from './plan.ts';

export interface BrokerReport {
  description: string;
  version: string | null;
  valid: boolean;
  problems: string[];
  /** Not failures: what the broker did that the figures should be read with (cuts, drops). */
  notes: string[];
  warm_up: { delivered_per_sec: number; lost: number } | null;
  cases: Partial<Record<CaseName, CaseMeasurement>>;
  /** VmRSS once started and after the last case, and VmHWM: the peak over the broker's whole life. */
  memory: { rss_start_mb: number; rss_end_mb: number; hwm_mb: number } | null;
}

export interface Goal {
  /** Broker and measure in one line, as every benchmark's goals name themselves. */
  name: string;
  broker: BrokerName;
  measure: string;
  target: string;
  value: number | null;
  met: boolean;
}

/** Messages sent and lost, by broker and case: QoS 1 must lose none; QoS 0 may, and says how many. */
export type Losses = Partial<
  Record<BrokerName, Partial<Record<CaseName, { qos: number; sent: number; lost: number }>>>
>;

export interface MqttReport {
  name: 'mqtt';
  at: string;
  machine: { cpus: number; cpu_model: string; node: string; load_1m: { before: number; after: number } };
  code: { commit: string; product_changes_uncommitted: boolean; uncommitted_diff_sha256: string | null };
  layout: string;
  settings: {
    plan: 'full' | 'quick';
    sizes: MqttPlan;
    protocol: string;
    mosquitto: {
      binary: string;
      version: string | null;
      anchor: BrokerName;
      configs: Record<MosquittoName, string>;
      defaults_that_matter: string;
    };
    /** Subscriber's clock minus publishers' (ms), measured over IPC; subtracted from latencies. */
    clock_correction_ms: { value: number; rtt_ms: number } | null;
  };
  valid: boolean;
  problems: string[];
  brokers: Partial<Record<BrokerName, BrokerReport>>;
  losses: Losses;
  /** Our saturated QoS 1 rates over the fair Mosquitto's (and, for information, the default one's). */
  ratios_to_mosquitto: Partial<Record<Ours, Ratios>>;
  goals: Goal[];
}

const OURS = ['ours-tcp', 'ours-tls-acl'] as const;
const QOS1_CASES: CaseName[] = [
  'qos1-saturated',
  'qos1-saturated-1-in-flight',
  'qos1-paced',
  'qos1-slow-subscriber',
];
const MEMORY_LIMIT_MB = 100;
const P99_LIMIT_MS = 5;
const RATIO_GOAL = 0.7;

type Ours = (typeof OURS)[number];

export interface Ratios {
  /** Window of 100 per publisher: messages the subscriber got per second, over the fair Mosquitto's. */
  qos1_saturated_delivered: number | null;
  /** One message in flight per publisher, over the fair Mosquitto's. */
  qos1_1_in_flight_delivered: number | null;
  /** Window of 100, over the default Mosquitto's delivered rate (it drops most): for information. */
  qos1_saturated_delivered_vs_default: number | null;
  /** Window of 100, publishes acknowledged per second over the default Mosquitto's (its include those it drops). */
  qos1_saturated_accepted_vs_default: number | null;
}

function ratio(
  brokers: MqttReport['brokers'],
  name: Ours,
  reference: MosquittoName,
  measure: (c: CaseMeasurement) => number,
  c: CaseName,
) {
  const ours = brokers[name]?.cases[c];
  const theirs = brokers[reference]?.cases[c];
  return ours === undefined || theirs === undefined || measure(theirs) === 0
    ? null
    : round(measure(ours) / measure(theirs), 3);
}

export function ratiosToMosquitto(brokers: MqttReport['brokers'], name: Ours): Ratios {
  const delivered = (c: CaseMeasurement) => c.delivery.delivered_per_sec;
  const accepted = (c: CaseMeasurement) => c.publishing.sent_per_sec;
  return {
    qos1_saturated_delivered: ratio(brokers, name, ANCHOR, delivered, 'qos1-saturated'),
    qos1_1_in_flight_delivered: ratio(brokers, name, ANCHOR, delivered, 'qos1-saturated-1-in-flight'),
    qos1_saturated_delivered_vs_default: ratio(brokers, name, 'mosquitto', delivered, 'qos1-saturated'),
    qos1_saturated_accepted_vs_default: ratio(brokers, name, 'mosquitto', accepted, 'qos1-saturated'),
  };
}

export function lossesOf(brokers: MqttReport['brokers']): Losses {
  const entries = Object.entries(brokers) as Array<[BrokerName, BrokerReport]>;
  return Object.fromEntries(
    entries.map(([name, report]) => [
      name,
      Object.fromEntries(
        Object.values(report.cases).map((c) => [
          c.case,
          { qos: c.qos, sent: c.publishing.sent, lost: c.delivery.lost },
        ]),
      ),
    ]),
  );
}

function goal(broker: BrokerName, measure: string, target: string, value: number | null, met: boolean): Goal {
  return { name: `${broker}: ${measure}`, broker, measure, target, value, met: value !== null && met };
}

function oursGoals(name: Ours, report: BrokerReport): Goal[] {
  const qos1 = QOS1_CASES.map((c) => report.cases[c]);
  const lost = qos1.every((c) => c !== undefined)
    ? qos1.reduce((total, c) => total + (c?.delivery.lost ?? 0), 0)
    : null;
  const p99 = (c: CaseName) => report.cases[c]?.delivery.latency_ms.p99 ?? null;
  const hwm = report.memory?.hwm_mb ?? null;
  const check = (measure: string, target: string, value: number | null, met: (v: number) => boolean) =>
    goal(name, measure, target, value, report.valid && value !== null && met(value));
  return [
    check('QoS 1 messages lost (every QoS 1 case)', '= 0', lost, (v) => v === 0),
    check('p99 latency ms at 1,000 msg/s, QoS 0', `< ${P99_LIMIT_MS}`, p99('qos0-paced'), (v) => v < 5),
    check('p99 latency ms at 1,000 msg/s, QoS 1', `< ${P99_LIMIT_MS}`, p99('qos1-paced'), (v) => v < 5),
    check('broker memory peak MB (VmHWM)', `< ${MEMORY_LIMIT_MB}`, hwm, (v) => v < MEMORY_LIMIT_MB),
  ];
}

/**
 * A ratio counts only when both runs of the case are valid and lost no QoS 1 message: a rate
 * bought by dropping, on either side, is not one to compare.
 */
function ratioGoals(brokers: MqttReport['brokers']): Goal[] {
  const tls = brokers['ours-tls-acl'];
  if (!tls) return [];
  const anchor = brokers[ANCHOR];
  const ratios = ratiosToMosquitto(brokers, 'ours-tls-acl');
  const whole = (c: CaseName) =>
    [tls, anchor].every((b) => b?.valid && b.cases[c] !== undefined && b.cases[c].delivery.lost === 0);
  const check = (measure: string, c: CaseName, value: number | null) =>
    goal('ours-tls-acl', measure, `>= ${RATIO_GOAL}`, value, whole(c) && (value ?? 0) >= RATIO_GOAL);
  return [
    check(
      `saturated QoS 1, 1 in flight per publisher: delivered/s over ${ANCHOR}'s, none lost`,
      'qos1-saturated-1-in-flight',
      ratios.qos1_1_in_flight_delivered,
    ),
    check(
      `saturated QoS 1, window 100: delivered/s over ${ANCHOR}'s, none lost`,
      'qos1-saturated',
      ratios.qos1_saturated_delivered,
    ),
  ];
}

/** A goal is met only on a valid broker run: figures from a failed case mean nothing. */
export function goalsOf(brokers: MqttReport['brokers']): Goal[] {
  const ours = OURS.flatMap((name) => {
    const report = brokers[name];
    return report ? oursGoals(name, report) : [];
  });
  return [...ours, ...ratioGoals(brokers)];
}

const COLUMNS = [
  ['broker', 14],
  ['case', 26],
  ['sent/s', 7],
  ['delivered/s', 11],
  ['lost', 14],
  ['dup', 5],
  ['cuts', 4],
  ['latency p50/p95/p99/max ms', 28],
  ['cpu % brk/pub/sub/other', 23],
  ['rss MB', 6],
  ['wr/msg', 6],
] as const;

const row = (cells: string[]) => cells.map((cell, i) => cell.padEnd(COLUMNS[i]![1])).join(' ');

function caseRow(broker: string, c: CaseMeasurement) {
  const d = c.delivery;
  const l = d.latency_ms;
  const cpu = c.cpu_percent;
  return row([
    broker,
    c.case,
    String(c.publishing.sent_per_sec),
    String(d.delivered_per_sec),
    d.lost === 0 ? '0' : `${d.lost} (${d.lost_percent}%)`,
    String(d.duplicates),
    String(d.disconnects),
    `${l.p50}/${l.p95}/${l.p99}/${l.max}`,
    `${cpu.broker ?? '-'}/${cpu.publishers ?? '-'}/${cpu.subscriber ?? '-'}/${cpu.others ?? '-'}`,
    String(c.broker_rss_peak_mb),
    String(c.broker_syscalls?.writes_per_message ?? '-'),
  ]);
}

function brokerLines(name: string, report: BrokerReport) {
  const memory = report.memory
    ? `${name}: memory VmHWM ${report.memory.hwm_mb} MB; VmRSS once started ${report.memory.rss_start_mb} MB, after the last case ${report.memory.rss_end_mb} MB`
    : `${name}: memory not measured`;
  const heaps = Object.values(report.cases).flatMap((c) =>
    c.broker_heap_peak
      ? [
          `${c.case} ${c.broker_heap_peak.heap_used_mb}/${c.broker_heap_peak.heap_total_mb}/${c.broker_heap_peak.external_mb}`,
        ]
      : [],
  );
  return [
    memory,
    ...(heaps.length > 0
      ? [`${name}: peak V8 heap used/heap total/external MB by case: ${heaps.join(', ')}`]
      : []),
    ...report.notes.map((note) => `${name}: note: ${note}`),
    ...report.problems.map((problem) => `${name}: PROBLEM: ${problem}`),
  ];
}

export function summarizeMqtt(report: MqttReport): string[] {
  const { machine, settings, code } = report;
  const dirty = code.product_changes_uncommitted
    ? ` (with uncommitted changes ${code.uncommitted_diff_sha256 ?? ''})`
    : '';
  const entries = Object.entries(report.brokers) as Array<[BrokerName, BrokerReport]>;
  const rows = entries.flatMap(([name, b]) => Object.values(b.cases).map((c) => caseRow(name, c)));
  const ratios = Object.entries(report.ratios_to_mosquitto).map(
    ([name, r]) =>
      `${name} over ${ANCHOR}, saturated QoS 1 delivered: 1 in flight ${r.qos1_1_in_flight_delivered ?? '-'}, window 100 ${r.qos1_saturated_delivered ?? '-'} (over the default mosquitto's, window 100: ${r.qos1_saturated_delivered_vs_default ?? '-'} delivered, ${r.qos1_saturated_accepted_vs_default ?? '-'} accepted)`,
  );
  return [
    `mqtt: ${settings.plan} plan at ${code.commit}${dirty}, ${machine.cpus} cpus, node ${machine.node}, mosquitto ${settings.mosquitto.version ?? 'missing'}, load ${machine.load_1m.before} -> ${machine.load_1m.after}`,
    `${settings.sizes.publishers} publishers, 1 subscriber, ${settings.sizes.messageBytes}-byte messages; cuts = subscriber connections the broker closed; cpu in % of one core, other = the rest of the machine; wr/msg = broker write syscalls per message delivered`,
    row(COLUMNS.map(([title]) => title)),
    ...rows,
    ...entries.flatMap(([name, b]) => brokerLines(name, b)),
    ...ratios,
    ...report.goals.map((g) => `goal ${g.name} ${g.target}: ${g.value ?? '-'} ${g.met ? 'met' : 'NOT met'}`),
    `goals met: ${report.goals.filter((g) => g.met).length} of ${report.goals.length}`,
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
