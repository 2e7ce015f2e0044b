/** Presets or custom dates; editing a date turns the period into a custom one. */
import { Field, inputValue } from '../../components/ui.tsx';
import { type Period, PRESETS, type Preset } from './period.ts';

export function PeriodPicker(props: {
  period: Period;
  onChange: (next: { period: Preset; start?: string; end?: string }) => void;
}) {
  const { period } = props;
  const custom = (start: string, end: string) => props.onChange({ period: 'custom', start, end });
  return (
    <div class="toolbar">
      <Field label="Period">
        <select
          value={period.preset}
          data-testid="period-preset"
          onChange={(event) => {
            const preset = inputValue(event) as Preset;
            if (preset === 'custom') custom(period.start, period.end);
            else props.onChange({ period: preset, start: undefined, end: undefined });
          }}
        >
          {PRESETS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="From">
        <input
          type="date"
          value={period.start}
          max={period.end}
          required
          data-testid="period-start"
          onChange={(event) => inputValue(event) && custom(inputValue(event), period.end)}
        />
      </Field>
      <Field label="To">
        <input
          type="date"
          value={period.end}
          min={period.start}
          required
          data-testid="period-end"
          onChange={(event) => inputValue(event) && custom(period.start, inputValue(event))}
        />
      </Field>
    </div>
  );
}
