/**
 * Motion gating before detection: a cheap difference of small grey images decides which frames
 * are worth inferring, so a still scene costs almost nothing, and a re-check policy keeps stopped
 * objects in view.
 */
export { createMotionGate, type MotionGate, type MotionGateOptions, type MotionResult } from './gate.ts';
export { createGreySampler, type GreySampler } from './grey.ts';
export { shouldInfer } from './policy.ts';
