/**
 * A store's date and time as format.ts writes it, with one formatter kept per time zone: making an
 * Intl formatter per call costs about a millisecond, which a table of hundreds of stores cannot pay.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string) {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function storeDateTime(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return formatterFor(timeZone).format(date);
  } catch {
    return date.toISOString();
  }
}
