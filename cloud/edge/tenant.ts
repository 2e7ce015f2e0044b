const TENANT_LABEL = /^[a-z0-9-]{1,63}$/;

/**
 * The tenant of a request: the first label of its Host under the service domain
 * (`alpha.example.com` → `alpha`, `x.alpha.example.com` → `x`, any port ignored), as the API words
 * it. The label must already be lower-case letters, digits and hyphens; the domain compares
 * case-insensitively, as DNS does. The bare domain, another domain or an IP address name no tenant.
 */
export function tenantOf(host: string | undefined, serviceDomain: string): string | undefined {
  if (!host) return undefined;
  const name = withoutPort(host);
  const suffix = `.${serviceDomain}`;
  if (name.length <= suffix.length || !name.toLowerCase().endsWith(suffix)) return undefined;
  const dot = name.indexOf('.');
  const label = name.slice(0, dot);
  return TENANT_LABEL.test(label) ? label : undefined;
}

function withoutPort(host: string) {
  if (host.startsWith('[')) return ''; // an IPv6 literal
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
