/**
 * The JSON POST the SMS, voice and push providers take. The operator configures these URLs, so
 * they are trusted (no address guard); credentials go as HTTP basic auth when an account is set,
 * else as a bearer token. The notification id rides along as Idempotency-Key and `reference`, so a
 * provider that saw an attempt cut off mid-send can drop the repeat.
 */
import { ANSWER_MAX, byStatus, type SendResult } from './channel.ts';

export interface ProviderOptions {
  account: string | undefined;
  token: string | undefined;
  fetch: typeof fetch;
}

function authorization(options: ProviderOptions): Record<string, string> {
  if (!options.token) return {};
  if (options.account) {
    const pair = Buffer.from(`${options.account}:${options.token}`).toString('base64');
    return { authorization: `Basic ${pair}` };
  }
  return { authorization: `Bearer ${options.token}` };
}

/** The provider's id for the message, when its JSON answer names one. */
function providerRef(answer: string): string | undefined {
  try {
    const parsed = JSON.parse(answer) as { id?: unknown; sid?: unknown };
    const ref = parsed.id ?? parsed.sid;
    return typeof ref === 'string' || typeof ref === 'number' ? String(ref) : undefined;
  } catch {
    return undefined;
  }
}

export async function postToProvider(
  options: ProviderOptions,
  url: string,
  idempotencyKey: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<SendResult> {
  try {
    const response = await options.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        ...authorization(options),
      },
      body: JSON.stringify(body),
      signal,
      redirect: 'manual',
    });
    const answer = (await response.text()).slice(0, ANSWER_MAX);
    const result = byStatus(response.status, answer);
    return result.outcome === 'delivered' ? { ...result, providerRef: providerRef(answer) } : result;
  } catch (error) {
    const reason = signal.aborted ? 'the provider did not answer in time' : (error as Error).message;
    return { outcome: 'retry', error: reason };
  }
}
