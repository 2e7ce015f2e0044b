/**
 * Whether a frame goes to the detector: when the scene moves, on a camera's first frame, and at
 * least every `recheckMs` however still the scene is, so objects that stopped (a parked car, a
 * guest waiting at the counter) are seen again before their tracks expire. The caller picks
 * `recheckMs`: short while objects are tracked, long for an empty scene.
 */
export function shouldInfer(
  now: number,
  motion: { moving: boolean },
  lastInferredAt: number | undefined,
  recheckMs: number,
): boolean {
  if (motion.moving) return true;
  if (lastInferredAt === undefined) return true;
  return now - lastInferredAt >= recheckMs;
}
