import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { type TenantWithAdmin, tenantWithAdmin } from './platform-client.ts';

interface AuditPage {
  data: Array<{ id: string; tenant_id: string; action: string }>;
  meta: { pagination: { limit: number; next_cursor: string | null } };
}

describe.each(backends)('GET /v1/platform/audit-events paged by cursor on %s', (backend) => {
  let cloud: TestCloud;
  let a: TenantWithAdmin;
  let b: TenantWithAdmin;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    a = await tenantWithAdmin(cloud, 'alpha');
    b = await tenantWithAdmin(cloud, 'bravo');
  });
  afterEach(() => cloud.close());

  /** Events of both tenants, interleaved in time, so each tenant's ids fall between the other's. */
  async function recordInterleaved(count: number) {
    for (let i = 0; i < count; i += 1) {
      for (const tenant of [a, b]) {
        const action = i % 3 === 0 ? 'test.rare' : 'test.common';
        await cloud.services.audit.record({ action, outcome: 'success', tenantId: tenant.tenant.id });
      }
    }
  }

  /** Follows next_cursor from the first page to the last, as a client does. */
  async function walk(tenant: TenantWithAdmin, query: string) {
    const pages: AuditPage[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/audit-events?${query}${cursor ? `&cursor=${cursor}` : ''}`;
      const response = await tenant.admin.call('GET', url);
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json() as AuditPage;
      pages.push(page);
      cursor = page.meta.pagination.next_cursor;
    } while (cursor !== null && pages.length < 50);
    return { pages, ids: pages.flatMap((page) => page.data.map((event) => event.id)) };
  }

  const everything = async (tenant: TenantWithAdmin, query = '') =>
    ((await tenant.admin.call('GET', `/audit-events?limit=200${query}`)).json() as AuditPage).data;

  it('pages to the end by cursor with no duplicates and no gaps, newest first', async () => {
    await recordInterleaved(11);
    const all = (await everything(a)).map((event) => event.id);
    expect(all).toEqual([...all].sort().reverse());

    for (const limit of [1, 3, 4, all.length]) {
      const { pages, ids } = await walk(a, `limit=${limit}`);
      expect(ids).toEqual(all);
      expect(new Set(ids).size).toBe(ids.length);
      // No trailing empty page: the last page is the one without a cursor.
      expect(pages).toHaveLength(Math.ceil(all.length / limit));
      for (const page of pages) expect(page.meta.pagination.limit).toBe(limit);
      expect(pages.slice(0, -1).every((page) => page.data.length === limit)).toBe(true);
    }
  });

  it('keeps the action filter across pages', async () => {
    await recordInterleaved(10);
    const rare = (await everything(a, '&action=test.rare')).map((event) => event.id);
    expect(rare).toHaveLength(4);
    const { ids, pages } = await walk(a, 'limit=3&action=test.rare');
    expect(ids).toEqual(rare);
    expect(pages).toHaveLength(2);
  });

  it('answers 400 in the general envelope to a cursor that is not an event id', async () => {
    for (const cursor of ['yesterday', '42', '', 'not-a-uuid-at-all-0000000000000000', "1' or '1'='1"]) {
      const response = await a.admin.call('GET', `/audit-events?cursor=${encodeURIComponent(cursor)}`);
      expect(response.statusCode, `${cursor} → ${response.body}`).toBe(400);
      expect(response.json()).toEqual({
        error: {
          code: 'INVALID_REQUEST',
          message: expect.any(String),
          details: [{ field: 'querystring.cursor', message: expect.any(String) }],
        },
        meta: { request_id: expect.any(String) },
      });
    }
  });

  it('treats a well-formed id that names no event as a position, not an error', async () => {
    await recordInterleaved(2);
    const newest = await a.admin.call('GET', '/audit-events?cursor=ffffffff-ffff-7fff-bfff-ffffffffffff');
    expect(newest.statusCode).toBe(200);
    expect((newest.json() as AuditPage).data.map((event) => event.id)).toEqual(
      (await everything(a)).map((event) => event.id),
    );
    const oldest = await a.admin.call('GET', '/audit-events?cursor=00000000-0000-7000-8000-000000000000');
    expect(oldest.json()).toMatchObject({ data: [], meta: { pagination: { limit: 50, next_cursor: null } } });
  });

  it('no longer takes ?before=, which ?cursor= replaces', async () => {
    const [event] = await everything(a);
    const response = await a.admin.call('GET', `/audit-events?before=${event!.id}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('INVALID_REQUEST');
  });

  it('never shows one tenant’s events to another, whatever cursor it is given', async () => {
    await recordInterleaved(7);
    const aIds = new Set((await everything(a)).map((event) => event.id));
    const bAll = await everything(b);
    expect(bAll.length).toBeGreaterThan(0);
    for (const event of bAll) expect(event.tenant_id).toBe(b.tenant.id);

    const { ids } = await walk(b, 'limit=2');
    expect(ids).toEqual(bAll.map((event) => event.id));
    // A's newest event as B's cursor: B reads its own older events, none of A's.
    const [aNewest] = aIds;
    const fromA = await b.admin.call('GET', `/audit-events?limit=200&cursor=${aNewest}`);
    expect(fromA.statusCode).toBe(200);
    const seen = (fromA.json() as AuditPage).data;
    expect(seen.length).toBeGreaterThan(0);
    for (const event of seen) {
      expect(event.tenant_id).toBe(b.tenant.id);
      expect(aIds.has(event.id)).toBe(false);
    }
  });
});
