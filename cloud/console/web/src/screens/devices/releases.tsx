/** The tenant's releases, newest first: what a rollout can send to the stores. */
import { query } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Pager, Pill, Section } from '../../components/ui.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { nextCursorOf, useCursorPages, useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import type { ListAnswer, Release } from './types.ts';

const PAGE_SIZE = 20;
const megabytes = (bytes: number) => `${formatNumber(bytes / 1_048_576, 1)} MB`;

function ReleaseRow({ release }: { release: Release }) {
  return (
    <tr data-testid="release-row" data-release-id={release.id}>
      <td>
        <strong>{release.version}</strong>
      </td>
      <td>
        {release.state === 'available' ? (
          <Pill tone="ok">Available</Pill>
        ) : (
          <Pill tone="neutral">Retired</Pill>
        )}
      </td>
      <td class="num">{megabytes(release.size)}</td>
      <td>
        <code title={release.sha256}>{release.sha256.slice(0, 12)}…</code>
      </td>
      <td>{release.notes ?? <span class="muted">—</span>}</td>
      <td>{formatDateTime(release.created_at)}</td>
    </tr>
  );
}

export function ReleasesSection() {
  const pages = useCursorPages('');
  const list = useResource(
    (signal) =>
      api.get<ListAnswer<Release>>(
        `/v1/mdm/releases${query({ limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [pages.cursor],
  );
  const releases = list.data?.data ?? [];
  const next = nextCursorOf(list.data);
  return (
    <Section title="Releases">
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The releases could not be loaded" />
      )}
      {list.data === undefined && list.loading && <Loading label="Loading releases…" />}
      {list.data !== undefined && releases.length === 0 && (
        <Empty title="No releases yet">
          Build one with npm run release and upload the archive (POST /v1/mdm/releases, or the resumable
          upload for a slow link); it then shows here, ready for a rollout.
        </Empty>
      )}
      {releases.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="releases-table">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">State</th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col">SHA-256</th>
                <th scope="col">Notes</th>
                <th scope="col">Uploaded</th>
              </tr>
            </thead>
            <tbody>
              {releases.map((release) => (
                <ReleaseRow key={release.id} release={release} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        hasPrevious={pages.hasPrevious}
        hasNext={next !== null}
        onPrevious={pages.previous}
        onNext={() => next && pages.next(next)}
      />
    </Section>
  );
}
