/**
 * The page the kiosk shows while the local API is not answering yet: a data: URL, so it needs
 * nothing from the network or the disk, with no script (its Content-Security-Policy allows none)
 * and the same dark background as the window, so the screen does not flash between the two.
 */

export type RuntimeStatus = 'external' | 'running' | 'missing-settings' | 'refused-settings' | 'no-node';

export interface WaitingState {
  elapsedMs: number;
  apiUrl: string;
  runtime: RuntimeStatus;
  /** The file the AppImage's runtime reads its settings from. */
  settingsFile: string;
}

/** After this long the page stops saying "starting" and suggests a restart. */
export const SLOW_START_MS = 60_000;

/** What the starting page says, from what the kiosk knows about the runtime it waits for. */
export function waitingDetail(state: WaitingState): string {
  switch (state.runtime) {
    case 'missing-settings':
      return `The appliance has no settings yet: write them to ${state.settingsFile}, then restart the kiosk.`;
    case 'refused-settings':
      return `The appliance refused its settings in ${state.settingsFile}; its log says why.`;
    case 'no-node':
      return 'Node.js 20 is not installed: this kiosk runs the appliance with the system’s Node.js.';
  }
  if (state.elapsedMs < SLOW_START_MS) return `Waiting for the appliance at ${state.apiUrl}…`;
  return `Still waiting for the appliance at ${state.apiUrl}. If this lasts, restart the appliance.`;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

export function startingPageUrl(detail: string): string {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Starting…</title>
<style>
html, body { height: 100%; margin: 0; background: #111418; color: #e8eaed; }
body { display: flex; flex-direction: column; align-items: center; justify-content: center;
  font: 1.5rem system-ui, sans-serif; text-align: center; user-select: none; }
p { max-width: 40rem; margin: 0.5rem 2rem; }
.detail { font-size: 1rem; color: #9aa0a6; }
</style>
</head>
<body>
<p>Starting the store appliance…</p>
<p class="detail">${escapeHtml(detail)}</p>
</body>
</html>
`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}
