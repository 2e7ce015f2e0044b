import { clampPct } from '../lib/progress.ts';

/** A labelled progress bar; without a figure it shows as running (indeterminate). */
export function ProgressBar(props: { label: string; pct: number | null | undefined; tone?: 'ok' | 'bad' }) {
  const pct = clampPct(props.pct);
  return (
    <div
      class={`progress ${pct === null ? 'indeterminate' : ''} ${props.tone ?? ''}`}
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct ?? undefined}
    >
      <div class="progress-fill" style={{ width: pct === null ? '35%' : `${pct}%` }} />
    </div>
  );
}
