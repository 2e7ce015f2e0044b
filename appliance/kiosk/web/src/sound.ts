/**
 * The mismatch alarm: a short two-tone beep every few seconds from a Web Audio oscillator (no
 * audio files). Chromium lets audio start after a user gesture; signing in is one, and the kiosk
 * shell may also allow autoplay outright.
 */
const INTERVAL_MS = 4000;

let context: AudioContext | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function beep() {
  context ??= new AudioContext();
  if (context.state === 'suspended') void context.resume();
  const start = context.currentTime;
  for (const [offset, frequency] of [
    [0, 880],
    [0.22, 660],
  ] as const) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.type = 'square';
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + offset);
    gain.gain.exponentialRampToValueAtTime(0.25, start + offset + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.18);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(start + offset);
    oscillator.stop(start + offset + 0.2);
  }
}

export function startAlarm() {
  if (timer) return;
  try {
    beep();
  } catch {
    // No audio device: the banner still shows.
  }
  timer = setInterval(() => {
    try {
      beep();
    } catch {
      // As above.
    }
  }, INTERVAL_MS);
}

export function stopAlarm() {
  clearInterval(timer);
  timer = undefined;
}

export const alarmRunning = () => timer !== undefined;
