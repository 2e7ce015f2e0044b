/**
 * Where the kiosk may go: the appliance's own UI and nothing else. Everything the operator needs
 * is served by the local API, so a link, a redirect or a window.open towards anything else (another
 * host, a file, a data: or javascript: URL) is refused rather than opened on the store's screen.
 */

/** The kiosk's own origin, from the URL it was started on (`http://127.0.0.1:8090/kiosk/`). */
export function kioskOrigin(startUrl: string): string {
  const url = new URL(startUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`the kiosk's start URL must be http(s), got ${url.protocol}`);
  if (!isLocalHost(url.hostname))
    throw new Error(`the kiosk shows the appliance's own UI only; ${url.hostname} is not this machine`);
  return url.origin;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLocalHost(hostname: string): boolean {
  return LOCAL_HOSTS.has(hostname.toLowerCase());
}

/**
 * Whether the window may navigate to `target`: the same origin as the kiosk, nothing else. A URL
 * with user info is refused even on the kiosk's own origin: the UI never makes one, and
 * `http://127.0.0.1:8090@elsewhere/` is the classic way to make a foreign host look local.
 */
export function isAllowedNavigation(target: string, origin: string): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  return url.origin === origin && (url.protocol === 'http:' || url.protocol === 'https:');
}
