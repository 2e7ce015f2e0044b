/** Sending a sample event now, waiting for the endpoint's own answer. */
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Field, inputValue, Pill, ProgressBar } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { type Iface, loadCatalog, statusTone, type TestResult, type Webhook, webhookApi } from './client.ts';

/** Exact names, `category.*` and `*`, as the cloud matches them. */
const matches = (patterns: string[], name: string) =>
  patterns.some((p) => p === '*' || p === name || (p.endsWith('.*') && name.startsWith(p.slice(0, -1))));

/**
 * Names to offer: the subscription's exact ones, and for the admin interface the catalog's names
 * its wildcards cover (the subscription interface publishes no catalog of its own).
 */
function useChoices(iface: Iface, events: string[]) {
  const exact = events.filter((event) => !event.includes('*'));
  const wild = events.some((event) => event.includes('*'));
  const catalog = useResource(
    (signal) => (iface === 'admin' && wild ? loadCatalog(signal) : Promise.resolve([])),
    [iface, wild],
  );
  const covered = (catalog.data ?? [])
    .flatMap((c) => c.events.map((e) => e.name))
    .filter((n) => matches(events, n));
  return [...new Set([...exact, ...covered])];
}

export function TestDialog(props: { iface: Iface; webhook: Webhook; onClose: () => void }) {
  const choices = useChoices(props.iface, props.webhook.events);
  const [typed, setEvent] = useState<string | null>(null);
  const event = typed ?? choices[0] ?? '';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<TestResult | null>(null);
  const send = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(null);
    try {
      setResult(await webhookApi.test(props.iface, props.webhook.id, event.trim()));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Send a test event" onClose={() => !busy && props.onClose()} wide>
      <form onSubmit={send} class="dialog-body">
        <p>
          A real, signed delivery of a sample event goes to <code>{props.webhook.url}</code> now; the console
          shows what the endpoint answered.
        </p>
        <Field
          label="Event"
          hint={`One event this subscription listens to (${props.webhook.events.join(', ')}), e.g. order.created`}
        >
          <input
            list="test-event-choices"
            required
            value={event}
            data-testid="test-event"
            onInput={(e) => setEvent(inputValue(e))}
          />
        </Field>
        <datalist id="test-event-choices">
          {choices.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        {busy && <ProgressBar label="Waiting for the endpoint to answer" value={null} />}
        {error !== undefined && <ErrorNotice error={error} title="The test was not sent" />}
        {result && <TestOutcome result={result} />}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={props.onClose} disabled={busy}>
            Close
          </button>
          <button type="submit" class="btn primary" disabled={busy || !event.trim()} data-testid="send-test">
            {busy ? 'Sending…' : 'Send test'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function TestOutcome(props: { result: TestResult }) {
  const { result } = props;
  return (
    <div data-testid="test-result" class="test-result">
      <p>
        <Pill tone={statusTone(result.status)}>{result.status}</Pill>{' '}
        {result.response_code !== null ? `HTTP ${result.response_code}` : 'No HTTP answer'} in{' '}
        {formatNumber(result.latency_ms)} ms
      </p>
      {result.error && <p class="error-text">{result.error}</p>}
      {result.response_body && (
        <>
          <h3>Response body</h3>
          <pre>{result.response_body}</pre>
        </>
      )}
    </div>
  );
}
