/** How much work each measure of the webhook benchmark does: the full sizes, or a quick look. */
export interface WebhookPlan {
  /** Subscriptions, each its own loopback origin, all matching `order.*`. */
  endpoints: number;
  /** The raw client baseline: seconds measured, after a second's warm-up. */
  baselineSeconds: number;
  /** Throughput: events appended as fast as they go (each makes one delivery per endpoint). */
  throughputEvents: number;
  /** Events per append transaction in the throughput measure. */
  throughputEventsPerTransaction: number;
  /** Throughput gives up waiting for the last delivery after this long. */
  throughputTimeoutSeconds: number;
  /** Latency and isolation: events appended one per transaction at this steady rate. */
  eventsPerSecond: number;
  /** Seconds of steady appends measured, after `warmupSeconds` not measured. */
  steadySeconds: number;
  warmupSeconds: number;
  /** Isolation: the hanging endpoints' time-out (subscription timeout_seconds). */
  hangTimeoutSeconds: number;
}

export const FULL_PLAN: WebhookPlan = {
  endpoints: 100,
  baselineSeconds: 10,
  throughputEvents: 400,
  throughputEventsPerTransaction: 10,
  throughputTimeoutSeconds: 120,
  eventsPerSecond: 10,
  steadySeconds: 30,
  warmupSeconds: 3,
  hangTimeoutSeconds: 5,
};

export const QUICK_PLAN: WebhookPlan = {
  endpoints: 100,
  baselineSeconds: 3,
  throughputEvents: 80,
  throughputEventsPerTransaction: 10,
  throughputTimeoutSeconds: 45,
  eventsPerSecond: 10,
  steadySeconds: 6,
  warmupSeconds: 2,
  hangTimeoutSeconds: 5,
};
