/** How long each case of the MQTT benchmark runs: the full sizes, or a quick look. */
export interface MqttPlan {
  publishers: number;
  messageBytes: number;
  /** Saturated QoS 1 against each broker before its cases (JIT, connections, caches); not reported. */
  warmupSeconds: number;
  /** Saturated cases: every publisher sends as fast as its window allows for this long. */
  saturatedSeconds: number;
  /** Messages a publisher has sent and not yet seen written (QoS 0) or acknowledged (QoS 1). */
  window: number;
  /** Paced cases: this many messages per second in all, spread evenly over the publishers. */
  pacedRate: number;
  pacedSeconds: number;
  /** Slow subscriber: each publisher sends this many QoS 1 messages as fast as it can... */
  slowBurstPerPublisher: number;
  /** ...to a subscriber that handles this many per second (and reads no faster). */
  slowSubscriberRate: number;
  /** A case ends when every message sent has arrived, or when none has arrived for this long. */
  quietMs: number;
  /** The slow subscriber reconnects this long after losing its connection. */
  reconnectMs: number;
  /**
   * A case that ran while other processes on the machine used more than this (% of one core) is
   * run once more at the end, while the whole run stays within `budgetSeconds`; the run that met
   * less outside load is kept.
   */
  contendedPercent: number;
  budgetSeconds: number;
}

export const FULL_PLAN: MqttPlan = {
  publishers: 10,
  messageBytes: 256,
  warmupSeconds: 2,
  saturatedSeconds: 10,
  window: 100,
  pacedRate: 1000,
  pacedSeconds: 10,
  slowBurstPerPublisher: 2000,
  slowSubscriberRate: 2000,
  quietMs: 3000,
  reconnectMs: 250,
  contendedPercent: 25,
  budgetSeconds: 300,
};

export const QUICK_PLAN: MqttPlan = {
  ...FULL_PLAN,
  warmupSeconds: 1,
  saturatedSeconds: 3,
  pacedSeconds: 3,
  slowBurstPerPublisher: 500,
  slowSubscriberRate: 1000,
  quietMs: 2000,
  budgetSeconds: 120,
};
