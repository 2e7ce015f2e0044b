import type { Risk } from './tables.ts';

/** Which hourly limit an action counts against (restart 3 per hour, scale 5 per hour). */
export type RateGroup = 'restart' | 'scale';

/**
 * Spec 3's actions and their risk: restart service, clear cache and rotate logs are low, scale up
 * medium (all auto-approved where allowed); scale down, failover and a database query are high
 * and always need approval.
 */
export const ACTIONS = {
  restart_service: { risk: 'low', rateGroup: 'restart' },
  clear_cache: { risk: 'low', rateGroup: null },
  rotate_logs: { risk: 'low', rateGroup: null },
  scale_up: { risk: 'medium', rateGroup: 'scale' },
  scale_down: { risk: 'high', rateGroup: 'scale' },
  failover: { risk: 'high', rateGroup: null },
  database_query: { risk: 'high', rateGroup: null },
} as const satisfies Record<string, { risk: Risk; rateGroup: RateGroup | null }>;

export type RemediationAction = keyof typeof ACTIONS;
export const ACTION_NAMES = Object.keys(ACTIONS) as RemediationAction[];

export interface ApprovalRule {
  safetyLevel: number;
  environment: string | null;
  requireApproval: readonly string[];
  autoApprove: readonly string[];
}

/**
 * Whether an action may run without an operator, and why. High risk never may; the agent safety
 * level tightens the rest (3–4: medium needs approval too; 5: everything does); then the
 * environment decides: approval where required, none where auto-approve is allowed, and approval
 * in any environment named in neither list (unknown means careful).
 */
export function approvalDecision(risk: Risk, rule: ApprovalRule): { auto: boolean; detail: string } {
  const env = (rule.environment ?? '').toLowerCase();
  if (risk === 'high') return { auto: false, detail: 'high risk: approval required' };
  if (rule.safetyLevel >= 5)
    return { auto: false, detail: `safety level ${rule.safetyLevel}: approval required` };
  if (rule.safetyLevel >= 3 && risk === 'medium')
    return { auto: false, detail: `medium risk at safety level ${rule.safetyLevel}: approval required` };
  if (rule.requireApproval.includes(env))
    return { auto: false, detail: `${risk} risk in ${env}: approval required` };
  if (rule.autoApprove.includes(env)) return { auto: true, detail: `${risk} risk in ${env}: auto-approved` };
  return {
    auto: false,
    detail: `environment "${env || 'none'}" is not one that auto-approves: approval required`,
  };
}
