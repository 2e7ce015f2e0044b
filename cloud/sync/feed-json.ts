/**
 * A pull page rendered as JSON text straight from the feed rows. Their fields are stored as the
 * JSON the cloud wrote, so parsing each row only to serialize it again (a page is a thousand rows
 * and about a megabyte) would be most of the cloud's work for a pull. The shape is the route's
 * schema, `Envelope(PullResultSchema)`, which stays its documentation.
 */
import { meta } from '../../shared/http/envelope.ts';
import type { SyncFeedRow } from './tables.ts';

export interface FeedPage {
  rows: SyncFeedRow[];
  cursor: number;
  has_more: boolean;
  reset: boolean;
  server_hlc: string;
}

const text = JSON.stringify;

function entryJson(row: SyncFeedRow): string {
  const doc = row.doc === null ? '' : `,"doc":${text(row.doc)}`;
  return (
    `{"seq":${Number(row.seq)},"table":${text(row.table_name)},"row_id":${text(row.row_id)},` +
    `"version":${Number(row.version)},"deleted":${Number(row.deleted) === 1},"hlc":${text(row.hlc)},` +
    `"fields":${row.fields ?? 'null'}${doc}}`
  );
}

export function feedPageJson(requestId: string, page: FeedPage): string {
  const changes = page.rows.map(entryJson).join(',');
  const data =
    `{"changes":[${changes}],"cursor":${page.cursor},"has_more":${page.has_more},` +
    `"reset":${page.reset},"server_hlc":${text(page.server_hlc)}}`;
  return `{"data":${data},"meta":${text(meta(requestId))}}`;
}
