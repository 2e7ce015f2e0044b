import { Pill, type Tone } from '../../components/ui.tsx';
import { type OrderStatus, STATUS_LABELS } from './api.ts';

const TONES: Record<OrderStatus, Tone> = {
  open: 'info',
  sent: 'info',
  ready: 'warn',
  completed: 'ok',
  cancelled: 'neutral',
};

/** The order's status as the API names it, with its label as the tooltip. */
export function StatusPill(props: { status: OrderStatus; testId?: string }) {
  return (
    <span data-testid={props.testId}>
      <Pill tone={TONES[props.status] ?? 'neutral'} title={STATUS_LABELS[props.status]}>
        {props.status}
      </Pill>
    </span>
  );
}
