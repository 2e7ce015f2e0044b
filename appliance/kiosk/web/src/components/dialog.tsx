import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A modal over the screen: focus moves into it, Escape closes it. */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('input, select, textarea, button')?.focus();
  }, []);
  return (
    <div class="overlay">
      <div
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-label={props.title}
        ref={ref}
        onKeyDown={(e) => e.key === 'Escape' && props.onClose()}
      >
        <h2>{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}
