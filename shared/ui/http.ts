/**
 * What the two web apps (the kiosk on the appliance, the fleet console in the cloud) both do with
 * the API's answers. Browser code only: no Node imports.
 */

/** The parsed body; undefined for 204 or an empty body, the text itself when it is not JSON. */
export async function readJson(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A query string from the defined values only: `?a=1&b=x`, or '' when there are none. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
