/**
 * Order verification: an order's items against the pickup camera's detections on the tray (what
 * matched, what is missing, what is extra), the menu-item ↔ model-class mapping it reads them
 * through, and the measures it is judged by. Storing results, events and the HTTP route live with
 * their callers.
 */
export {
  DEFAULT_DUPLICATE_IOU,
  type DetectionRecord,
  type ItemCount,
  type OrderVerification,
  type VerifyOrderInput,
  verifyOrder,
} from './compare.ts';
export { type ConsensusOptions, consensusDetections } from './consensus.ts';
export {
  type EvaluateOptions,
  evaluateVerification,
  trayTruth,
  type VerificationCase,
  type VerificationMetrics,
} from './evaluate.ts';
export {
  createMenuMapping,
  DEFAULT_MENU_MAPPING,
  type MenuMapping,
  type MenuMappingConfig,
  MenuMappingConfigSchema,
  MenuMappingError,
  normaliseName,
  resolveMenuMapping,
  TRAY_CLASSES,
} from './mapping.ts';
