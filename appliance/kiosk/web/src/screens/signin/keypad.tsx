import { useEffect, useRef, useState } from 'preact/hooks';
import {
  emptyKeypad,
  type KeypadAction,
  keypadReducer,
  keyToAction,
  PIN_LENGTH,
  pinComplete,
} from '../../lib/keypad.ts';

const DIGITS = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

/** The PIN pad: on-screen keys and the physical keyboard (digits, Backspace, Escape, Enter). */
export function Keypad(props: { busy: boolean; onSubmit: (pin: string) => void; resetKey: number }) {
  // Kept in a ref as well as rendered: keys typed fast (a scanner, a test) each see the pad as the
  // previous key left it, and Enter right after the sixth digit submits all six.
  const current = useRef(emptyKeypad);
  const [state, setState] = useState(emptyKeypad);
  const dispatch = (action: KeypadAction) => {
    current.current = keypadReducer(current.current, action);
    setState(current.current);
  };
  const submit = () => {
    if (!props.busy && pinComplete(current.current)) props.onSubmit(current.current.pin);
  };

  // A failed attempt empties the pad (the parent bumps resetKey).
  useEffect(() => dispatch({ type: 'clear' }), [props.resetKey]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = keyToAction(event.key);
      if (!action) return;
      event.preventDefault();
      if (action === 'enter') submit();
      else dispatch(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const key = (label: string, testid: string, onPress: () => void, aria: string, extra = '') => (
    <button
      type="button"
      class={`key ${extra}`}
      data-testid={testid}
      aria-label={aria}
      disabled={props.busy}
      onClick={onPress}
    >
      {label}
    </button>
  );

  return (
    <div class="keypad">
      <output
        class="pin-dots"
        aria-live="polite"
        aria-label={`${state.pin.length} of ${PIN_LENGTH} digits entered`}
      >
        {Array.from({ length: PIN_LENGTH }, (_, i) => (
          <span key={i} class={i < state.pin.length ? 'dot filled' : 'dot'} />
        ))}
      </output>
      <div class="keys">
        {DIGITS.map((d) => key(d, `key-${d}`, () => dispatch({ type: 'digit', digit: d }), `Digit ${d}`))}
        {key('Clear', 'key-clear', () => dispatch({ type: 'clear' }), 'Clear the PIN', 'small')}
        {key('0', 'key-0', () => dispatch({ type: 'digit', digit: '0' }), 'Digit 0')}
        {key('⌫', 'key-back', () => dispatch({ type: 'back' }), 'Delete the last digit')}
      </div>
      <button
        type="button"
        class="key enter"
        data-testid="key-enter"
        aria-label="Enter"
        disabled={props.busy || !pinComplete(state)}
        onClick={submit}
      >
        {props.busy ? 'Checking…' : 'Enter'}
      </button>
    </div>
  );
}
