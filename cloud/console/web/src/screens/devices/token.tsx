/** An enrolment token, shown the one time the cloud answers it, with what to do with it. */
import { useState } from 'preact/hooks';
import { formatDateTime } from '../../format.ts';
import { useUser } from '../../session.ts';
import type { DeviceType } from './types.ts';

function CopyButton(props: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard?.writeText(props.text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <button type="button" class="btn small" onClick={copy}>
      {copied ? 'Copied' : props.label}
    </button>
  );
}

function ApplianceSteps(props: { token: string; locationId: string }) {
  const user = useUser();
  const env = [
    `TENANT_ID=${user?.tenant_id ?? '<your tenant id>'}`,
    `LOCATION_ID=${props.locationId}`,
    `CLOUD_URL=${location.origin}`,
    `APPLIANCE_ENROLLMENT_TOKEN=${props.token}`,
  ].join('\n');
  return (
    <>
      <p>
        On the store's appliance, add these lines to <code>/etc/edge-appliance/appliance.env</code> and
        restart it (<code>sudo systemctl restart edge-appliance</code>). At start it makes its own key, trades
        the token for its certificate and sync credential, and shows as <strong>active</strong> here.
      </p>
      <div class="dev-token-box">
        <pre data-testid="appliance-env">{env}</pre>
        <CopyButton text={env} label="Copy settings" />
      </div>
    </>
  );
}

export function EnrolmentToken(props: {
  token: string;
  deviceType: DeviceType;
  locationId: string;
  expiresAt: string | null;
}) {
  return (
    <div class="dev-enrolment-token" data-testid="enrollment-token">
      <div class="notice info" role="status">
        <strong>Copy this token now: it is shown only this once.</strong>
        <span>
          The cloud keeps only its fingerprint. It works once
          {props.expiresAt ? `, until ${formatDateTime(props.expiresAt)}` : ', for 7 days'}. If it is lost,
          regenerate a token for the device.
        </span>
      </div>
      <div class="dev-token-box">
        <code class="dev-token" data-testid="token-value">
          {props.token}
        </code>
        <CopyButton text={props.token} label="Copy token" />
      </div>
      {props.deviceType === 'appliance' ? (
        <ApplianceSteps token={props.token} locationId={props.locationId} />
      ) : (
        <p>
          Enter the token in the device's setup screen. The device sends it with its own certificate request
          and becomes <strong>active</strong> once the cloud has issued its certificate.
        </p>
      )}
    </div>
  );
}
