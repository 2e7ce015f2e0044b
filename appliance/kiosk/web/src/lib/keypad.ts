/**
 * The PIN keypad as a pure reducer: digits up to the PIN's length, back, clear. The screen maps
 * taps and physical keys onto these actions; Enter is the screen's (it submits `pin`).
 */

/** A staff PIN is exactly six digits (PinLoginSchema). */
export const PIN_LENGTH = 6;

export interface KeypadState {
  pin: string;
}

export type KeypadAction = { type: 'digit'; digit: string } | { type: 'back' } | { type: 'clear' };

export const emptyKeypad: KeypadState = { pin: '' };

export function keypadReducer(state: KeypadState, action: KeypadAction): KeypadState {
  switch (action.type) {
    case 'digit':
      if (!/^[0-9]$/.test(action.digit) || state.pin.length >= PIN_LENGTH) return state;
      return { pin: state.pin + action.digit };
    case 'back':
      return { pin: state.pin.slice(0, -1) };
    case 'clear':
      return emptyKeypad;
  }
}

export const pinComplete = (state: KeypadState) => state.pin.length === PIN_LENGTH;

/** A physical key as a keypad action, `enter`, or nothing. */
export function keyToAction(key: string): KeypadAction | 'enter' | undefined {
  if (/^[0-9]$/.test(key)) return { type: 'digit', digit: key };
  if (key === 'Backspace') return { type: 'back' };
  if (key === 'Escape' || key === 'Delete') return { type: 'clear' };
  if (key === 'Enter') return 'enter';
  return undefined;
}
