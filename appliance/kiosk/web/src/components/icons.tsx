/** The nav rail's icons: a few strokes each, drawn here (no icon font or image to fetch). */
const PATHS: Record<string, string> = {
  store: 'M3 9l2-5h14l2 5M4 9v11h16V9M3 9h18M9 20v-6h6v6',
  'drive-thru': 'M3 15l2-6h14l2 6M3 15h18v4H3zM6.5 19v2M17.5 19v2M7 17h.01M17 17h.01M8 9V6h8v3',
  verification: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M7.5 12.5l3 3 6-7',
  devices: 'M7 3h10v18H7zM10 7h4M12 17h.01M3 8v8M21 8v8',
  cameras: 'M3 7h4l2-3h6l2 3h4v13H3zM12 10a3.5 3.5 0 1 0 0 7a3.5 3.5 0 1 0 0-7',
  sync: 'M4 11a8 8 0 0 1 14-4l2 2M20 5v4h-4M20 13a8 8 0 0 1-14 4l-2-2M4 19v-4h4',
  timeclock: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 7v5l3.5 2',
};

export function Icon(props: { name: string }) {
  return (
    <svg
      class="icon"
      viewBox="0 0 24 24"
      width="32"
      height="32"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[props.name] ?? ''} />
    </svg>
  );
}
