/** Device certificates, soonest to expire first; those expiring within 30 days are flagged. */
import { useState } from 'preact/hooks';
import { query } from '../../api.ts';
import {
  ConfirmDialog,
  Empty,
  ErrorNotice,
  Field,
  inputValue,
  Loading,
  Pager,
  Pill,
} from '../../components/ui.tsx';
import { formatDateTime } from '../../format.ts';
import { nextCursorOf, useCursorPages, useResource } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { api } from '../../session.ts';
import { useCanManageDevices } from './access.ts';
import { REASON_LABELS } from './labels.ts';
import { type Stores, storeName, storeZone } from './stores.ts';
import {
  type Certificate,
  type Device,
  type ListAnswer,
  REVOCATION_REASONS,
  type RevocationReason,
} from './types.ts';

const PAGE_SIZE = 50;
const SOON_MS = 30 * 86_400_000;
/** The API lists certificates expiring within a window; its widest (9999 days) lists them all. */
const ALL_WINDOW = '9999d';

async function loadDevices(signal: AbortSignal): Promise<Map<string, Device>> {
  const devices = new Map<string, Device>();
  let cursor: string | null = null;
  for (let page = 0; page < 5; page += 1) {
    const answer: ListAnswer<Device> = await api.get(
      `/v1/mdm/devices${query({ limit: 200, cursor })}`,
      signal,
    );
    for (const device of answer.data) devices.set(device.id, device);
    cursor = nextCursorOf(answer);
    if (!cursor) break;
  }
  return devices;
}

function ExpiryCell({ cert, zone, now }: { cert: Certificate; zone: string | undefined; now: number }) {
  const left = new Date(cert.not_after).getTime() - now;
  const days = Math.max(0, Math.ceil(left / 86_400_000));
  return (
    <td>
      {formatDateTime(cert.not_after, zone)}{' '}
      {!cert.revoked && left < SOON_MS && (
        <Pill tone="warn" title="The device renews it by itself; one that does not may be offline">
          {days <= 1 ? 'Expires within a day' : `Expires in ${days} days`}
        </Pill>
      )}
    </td>
  );
}

function StatusCell({ cert }: { cert: Certificate }) {
  if (!cert.revoked)
    return (
      <td>
        <Pill tone="ok">Valid</Pill>
      </td>
    );
  const reason = cert.revocation_reason ? REASON_LABELS[cert.revocation_reason] : undefined;
  return (
    <td>
      <Pill tone="bad" title={reason}>
        {cert.revocation_reason === 'superseded' ? 'Replaced' : 'Revoked'}
      </Pill>
      {cert.revoked_at && <div class="muted small">{formatDateTime(cert.revoked_at)}</div>}
    </td>
  );
}

function CertRow(props: {
  cert: Certificate;
  device: Device | undefined;
  stores: Stores;
  onRevoke: () => void;
}) {
  const manage = useCanManageDevices();
  const { cert, device } = props;
  const zone = device ? storeZone(props.stores, device.location_id) : undefined;
  return (
    <tr data-testid="cert-row" data-serial={cert.serial}>
      <td>
        <code class="dev-serial">{cert.serial}</code>
      </td>
      <td>
        {device ? device.name : <span class="muted">Device …{cert.device_id.slice(-8)}</span>}
        {device && <div class="muted small">{storeName(props.stores, device.location_id)}</div>}
      </td>
      <td>
        <code class="small">CN={cert.device_id}</code>
      </td>
      <ExpiryCell cert={cert} zone={zone} now={Date.now()} />
      <StatusCell cert={cert} />
      <td class="dev-actions">
        {manage && !cert.revoked && (
          <button
            type="button"
            class="btn small dev-danger"
            aria-label={`Revoke certificate ${cert.serial}`}
            onClick={props.onRevoke}
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}

function RevokeCertificateDialog(props: {
  cert: Certificate;
  deviceName: string;
  onClose: (done: boolean) => void;
}) {
  const [reason, setReason] = useState<RevocationReason>('key_compromise');
  return (
    <ConfirmDialog
      title="Revoke this certificate?"
      confirmLabel="Revoke the certificate"
      danger
      onConfirm={() =>
        api.post(`/v1/mdm/certificates/${encodeURIComponent(props.cert.serial)}/revoke`, { reason })
      }
      onClose={props.onClose}
    >
      <p>
        <strong>{props.deviceName}</strong> can no longer connect with certificate{' '}
        <code>{props.cert.serial}</code>: its store's appliance closes its sessions within seconds and refuses
        it from then on. The device itself stays registered; to bring it back, make it a new enrolment token
        and enrol it again.
      </p>
      <Field label="Reason">
        <select value={reason} onChange={(e) => setReason(inputValue(e) as RevocationReason)}>
          {REVOCATION_REASONS.map((r) => (
            <option key={r} value={r}>
              {REASON_LABELS[r]}
            </option>
          ))}
        </select>
      </Field>
    </ConfirmDialog>
  );
}

function CertFilters() {
  const [search, setSearch] = useSearch();
  return (
    <div class="toolbar">
      <label class="dev-check">
        <input
          type="checkbox"
          checked={search.get('expiring') === '30d'}
          onChange={(e) =>
            setSearch({ expiring: (e.currentTarget as HTMLInputElement).checked ? '30d' : '' })
          }
        />
        Expiring within 30 days
      </label>
      <label class="dev-check">
        <input
          type="checkbox"
          checked={search.get('revoked') === '1'}
          onChange={(e) => setSearch({ revoked: (e.currentTarget as HTMLInputElement).checked ? '1' : '' })}
        />
        Show revoked and replaced
      </label>
    </div>
  );
}

export function CertificatesTab(props: { stores: Stores }) {
  const [search] = useSearch();
  const soon = search.get('expiring') === '30d';
  const filters = {
    expiring_within: soon ? '30d' : ALL_WINDOW,
    include_revoked: search.get('revoked') === '1',
  };
  const key = JSON.stringify(filters);
  const pages = useCursorPages(key);
  const list = useResource(
    (signal) =>
      api.get<ListAnswer<Certificate>>(
        `/v1/mdm/certificates${query({ ...filters, limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [key, pages.cursor],
  );
  const devices = useResource(loadDevices, []);
  const [revoking, setRevoking] = useState<Certificate>();
  const certs = list.data?.data ?? [];
  const next = nextCursorOf(list.data);
  const nameOf = (id: string) => devices.data?.get(id)?.name ?? `device …${id.slice(-8)}`;
  return (
    <div>
      <CertFilters />
      <p class="muted small">
        Certificates that have already expired are not listed. Times are each store's own.
      </p>
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The certificates could not be loaded" />
      )}
      {list.data === undefined && list.loading && <Loading label="Loading certificates…" />}
      {list.data !== undefined && certs.length === 0 && (
        <Empty title={soon ? 'No certificate expires within 30 days' : 'No certificates yet'}>
          {soon
            ? 'Nothing to do: devices renew their certificates by themselves before they expire.'
            : 'A device gets its certificate when it enrols with its token. Register devices on the Devices tab.'}
        </Empty>
      )}
      {certs.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="certificates-table">
            <thead>
              <tr>
                <th scope="col">Serial</th>
                <th scope="col">Device</th>
                <th scope="col">Subject</th>
                <th scope="col">Not after</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {certs.map((cert) => (
                <CertRow
                  key={cert.serial}
                  cert={cert}
                  device={devices.data?.get(cert.device_id)}
                  stores={props.stores}
                  onRevoke={() => setRevoking(cert)}
                />
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
        summary={certs.length > 0 ? `Page ${pages.page} · ${certs.length} certificates` : undefined}
      />
      {revoking && (
        <RevokeCertificateDialog
          cert={revoking}
          deviceName={nameOf(revoking.device_id)}
          onClose={(done) => {
            setRevoking(undefined);
            if (done) list.reload();
          }}
        />
      )}
    </div>
  );
}
