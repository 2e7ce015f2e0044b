/** The console's building blocks: page frame, states (loading, empty, error), pills, progress, dialogs. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../api.ts';

export function Page(props: {
  title: string;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${props.title} · Fleet console`;
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <div>
          <h1 id="page-title">{props.title}</h1>
          {props.subtitle && <p class="muted">{props.subtitle}</p>}
        </div>
        {props.actions && <div class="page-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

export function Section(props: {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
  id?: string;
}) {
  const id = props.id ?? `section-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class="card" aria-labelledby={id}>
      <header class="card-head">
        <h2 id={id}>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? 'Loading…'}
    </div>
  );
}

/** An error in plain words with the request id, and a retry when one makes sense. */
export function ErrorNotice(props: { error: unknown; onRetry?: () => void; title?: string }) {
  const { message, requestId } = describeError(props.error);
  return (
    <div class="notice bad" role="alert" data-testid="error">
      <strong>{props.title ?? 'Something went wrong'}</strong>
      <span>{message}</span>
      {requestId && (
        <span class="muted small">
          Request id: <code>{requestId}</code>
        </span>
      )}
      {props.onRetry && (
        <button type="button" class="btn small" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** What the screen would show, why it is empty, and what to do about it. */
export function Empty(props: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty-state" data-testid="empty">
      <strong>{props.title}</strong>
      {props.children && <p class="muted">{props.children}</p>}
      {props.action}
    </div>
  );
}

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'neutral';

export function Pill(props: { tone: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`pill ${props.tone}`} title={props.title}>
      {props.children}
    </span>
  );
}

/** A labelled progress bar; without a figure it shows as running. */
export function ProgressBar(props: { label: string; value: number | null | undefined; tone?: Tone }) {
  const pct =
    props.value === null || props.value === undefined || !Number.isFinite(props.value)
      ? null
      : Math.max(0, Math.min(100, props.value * 100));
  return (
    <div
      class={`progress ${pct === null ? 'indeterminate' : ''} ${props.tone ?? ''}`}
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct === null ? undefined : Math.round(pct)}
    >
      <div class="progress-fill" style={{ width: pct === null ? '35%' : `${pct}%` }} />
    </div>
  );
}

/** A modal dialog: focus moves in and is kept there, Escape closes, focus returns afterwards. */
export function Dialog(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('input, select, textarea, button:not(.dialog-close)')?.focus();
    return () => before?.focus?.();
  }, []);
  const trap = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return props.onClose();
    if (event.key !== 'Tab' || !ref.current) return;
    const focusable = [
      ...ref.current.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]'),
    ].filter((el) => !el.hasAttribute('disabled'));
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  };
  return (
    <div class="overlay">
      <div
        class={`dialog ${props.wide ? 'wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="dialog-title"
        ref={ref}
        onKeyDown={trap}
      >
        <h2 id="dialog-title">{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}

/**
 * Asks before an action that changes something at a store, saying exactly what will happen; runs
 * it, shows its error in place, and closes only when it succeeded.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
  onClose: (done: boolean) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async () => {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose(true);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  // aria-disabled, not disabled, while it works: a disabled button drops the focus out of the
  // dialog, and Escape and Tab would then no longer reach it.
  return (
    <Dialog title={props.title} onClose={() => !busy && props.onClose(false)}>
      <div class="dialog-body">{props.children}</div>
      {error !== undefined && <ErrorNotice error={error} title="It did not go through" />}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={() => !busy && props.onClose(false)} aria-disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          class={`btn ${props.danger ? 'danger' : 'primary'}`}
          onClick={run}
          aria-disabled={busy}
          data-testid="confirm"
        >
          {busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

export function Field(props: { label: string; hint?: string; error?: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child the caller passes in
    <label class="field">
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint && <span class="muted small">{props.hint}</span>}
      {props.error && <span class="error-text small">{props.error}</span>}
    </label>
  );
}

/** Summary figures over a screen: label above, value below. */
export function Stat(props: { label: string; value: ComponentChildren; tone?: Tone; testId?: string }) {
  return (
    <div class={`stat ${props.tone ?? ''}`} data-testid={props.testId}>
      <span class="stat-label">{props.label}</span>
      <span class="stat-value">{props.value}</span>
    </div>
  );
}

export function Tabs<T extends string>(props: {
  label: string;
  tabs: Array<{ id: T; label: string }>;
  value: T;
  onChange: (id: T) => void;
}) {
  return (
    <div class="tabs" role="tablist" aria-label={props.label}>
      {props.tabs.map((tab) => (
        <button
          type="button"
          role="tab"
          key={tab.id}
          aria-selected={tab.id === props.value}
          class={tab.id === props.value ? 'tab active' : 'tab'}
          onClick={() => props.onChange(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** Previous and next pages for cursor-paged lists. */
export function Pager(props: {
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  summary?: string;
}) {
  if (!props.hasPrevious && !props.hasNext)
    return props.summary ? <p class="muted small">{props.summary}</p> : null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="btn small" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous
      </button>
      {props.summary && <span class="muted small">{props.summary}</span>}
      <button type="button" class="btn small" disabled={!props.hasNext} onClick={props.onNext}>
        Next
      </button>
    </nav>
  );
}

/** The value of the input, select or textarea an event came from. */
export const inputValue = (event: Event) =>
  (event.currentTarget as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement).value;
