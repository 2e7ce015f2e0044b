import { describe, expect, it } from 'vitest';
import {
  emptyKeypad,
  type KeypadAction,
  keypadReducer,
  keyToAction,
  PIN_LENGTH,
  pinComplete,
} from '../../../../appliance/kiosk/web/src/lib/keypad.ts';

const press = (...actions: KeypadAction[]) => actions.reduce(keypadReducer, emptyKeypad);
const digits = (text: string) => [...text].map((digit): KeypadAction => ({ type: 'digit', digit }));

describe('the PIN keypad', () => {
  it('takes digits up to the PIN length and no more', () => {
    expect(press(...digits('12345')).pin).toBe('12345');
    expect(pinComplete(press(...digits('12345')))).toBe(false);
    const full = press(...digits('12345678'));
    expect(full.pin).toBe('123456');
    expect(full.pin).toHaveLength(PIN_LENGTH);
    expect(pinComplete(full)).toBe(true);
  });

  it('deletes the last digit and clears, and back on an empty pad stays empty', () => {
    expect(press(...digits('123'), { type: 'back' }).pin).toBe('12');
    expect(press(...digits('123'), { type: 'clear' }).pin).toBe('');
    expect(press({ type: 'back' }).pin).toBe('');
  });

  it('ignores anything that is not a single digit', () => {
    expect(press({ type: 'digit', digit: 'a' }, { type: 'digit', digit: '12' }).pin).toBe('');
  });

  it('maps the physical keyboard', () => {
    expect(keyToAction('7')).toEqual({ type: 'digit', digit: '7' });
    expect(keyToAction('Backspace')).toEqual({ type: 'back' });
    expect(keyToAction('Escape')).toEqual({ type: 'clear' });
    expect(keyToAction('Enter')).toBe('enter');
    expect(keyToAction('x')).toBeUndefined();
    expect(keyToAction('F5')).toBeUndefined();
  });
});
