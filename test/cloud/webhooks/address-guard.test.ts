import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  BLOCKED_ADDRESS_CODE,
  checkWebhookUrl,
  createGuardedLookup,
  isForbiddenAddress,
  type Resolve,
} from '../../../cloud/webhooks/address-guard.ts';

describe('isForbiddenAddress', () => {
  const forbidden = {
    loopback: ['127.0.0.1', '127.255.255.254', '::1'],
    private: ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    'link-local and metadata': ['169.254.169.254', 'fe80::1', 'fe80::1%eth0', 'febf::1'],
    unspecified: ['0.0.0.0', '0.1.2.3', '::'],
    'carrier-grade NAT': ['100.64.0.1', '100.127.255.255'],
    multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1'],
    'broadcast and reserved': ['255.255.255.255', '240.0.0.1', '192.0.0.8'],
    'documentation and benchmarking': [
      '192.0.2.1',
      '198.51.100.1',
      '203.0.113.9',
      '198.18.0.1',
      '2001:db8::1',
    ],
    'unique-local': ['fc00::1', 'fd12:3456::1'],
    'IPv4-mapped': ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254'],
    'IPv4-compatible': ['::127.0.0.1', '::7f00:1', '::8.8.8.8'],
    'IPv4-translated': ['::ffff:0:7f00:1'],
    NAT64: ['64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::808:808'],
    '6to4': ['2002:7f00:1::1', '2002:c0a8:101::1'],
    Teredo: ['2001:0:7f00:1:8000:63bf:3fff:fdd2', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    'not canonical or not an address': [
      '2130706433',
      '0177.0.0.1',
      '0x7f.1',
      '127.1',
      'example.com',
      '',
      '1.2.3',
    ],
  };
  for (const [kind, addresses] of Object.entries(forbidden)) {
    it(`refuses ${kind}`, () => {
      for (const address of addresses) expect(isForbiddenAddress(address), address).toBe(true);
    });
  }

  it('lets public unicast through, including public IPv4 inside IPv6 forms', () => {
    const allowed = [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '[2a00:1450:4001::200e]',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    ];
    for (const address of allowed) expect(isForbiddenAddress(address), address).toBe(false);
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowPrivate: false };
  const reason = (raw: string, options = strict) => {
    const result = checkWebhookUrl(raw, options);
    return result.ok ? 'ok' : result.reason;
  };

  it('accepts public http and https URLs', () => {
    const result = checkWebhookUrl('https://hooks.example.com:8443/in?x=1', strict);
    expect(result.ok && result.url.host).toBe('hooks.example.com:8443');
    expect(reason('http://93.184.215.14/hook')).toBe('ok');
    expect(reason('http://[2606:4700:4700::1111]/hook')).toBe('ok');
  });

  it('refuses what is not an absolute http(s) URL', () => {
    expect(reason('')).toBe('must be an absolute URL');
    expect(reason('/relative/path')).toBe('must be an absolute URL');
    expect(reason('hooks.example.com/in')).toBe('must be an absolute URL');
    expect(reason('ftp://hooks.example.com/')).toBe('must use http or https');
    expect(reason('file:///etc/passwd')).toBe('must use http or https');
    expect(reason('javascript:alert(1)')).toBe('must use http or https');
  });

  it('refuses credentials, fragments and overlong URLs', () => {
    expect(reason('https://user:pass@hooks.example.com/')).toMatch(/user name or password/);
    expect(reason('https://user@hooks.example.com/')).toMatch(/user name or password/);
    expect(reason('https://hooks.example.com/in#part')).toBe('must not contain a fragment');
    expect(reason('https://hooks.example.com/in#')).toBe('must not contain a fragment');
    expect(reason(`https://hooks.example.com/${'a'.repeat(2048)}`)).toMatch(/at most 2048/);
    expect(reason(`https://hooks.example.com/${'a'.repeat(2048 - 26)}`)).toBe('ok');
  });

  it('refuses private IP literals in every spelling the URL parser normalises', () => {
    const spellings = [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.0.0.1/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]:8080/',
      'http://0.0.0.0:3000/',
    ];
    for (const raw of spellings) expect(reason(raw), raw).toBe('resolves to a private address');
  });

  it('refuses local names', () => {
    for (const raw of [
      'http://localhost/',
      'http://LOCALHOST./',
      'http://api.localhost/',
      'http://metadata.google.internal/',
      'http://printer.local/',
    ]) {
      expect(reason(raw), raw).toBe('points to a local host name');
    }
    expect(reason('http://localhost.example.com/')).toBe('ok');
  });

  it('allows private targets only when told to, and still checks syntax then', () => {
    const open = { allowPrivate: true };
    expect(reason('http://127.0.0.1:3000/hook', open)).toBe('ok');
    expect(reason('http://localhost/', open)).toBe('ok');
    expect(reason('ftp://127.0.0.1/', open)).toBe('must use http or https');
    expect(reason('http://a:b@127.0.0.1/', open)).toMatch(/user name or password/);
  });
});

describe('createGuardedLookup', () => {
  /** Calls the lookup the way net.connect does and reports what the socket would be handed. */
  const lookupOnce = (resolve: Resolve, all: boolean, family = 0) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((done) => {
      createGuardedLookup(resolve, false)('hooks.example.com', { all, family }, (error, address) =>
        done({ error, address }),
      );
    });

  it('resolves once and hands the socket exactly the checked answer', async () => {
    // A rebinding server: public on the first question, loopback on every later one.
    const answers = ['93.184.215.14', '127.0.0.1'];
    let calls = 0;
    const rebinding: Resolve = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    expect(await lookupOnce(rebinding, true)).toEqual({
      error: null,
      address: [{ address: '93.184.215.14', family: 4 }],
    });
    expect(calls).toBe(1);
    // The next connection asks again and gets refused: no answer is ever used unchecked.
    const second = await lookupOnce(rebinding, true);
    expect(second.error?.code).toBe(BLOCKED_ADDRESS_CODE);
    expect(calls).toBe(2);
  });

  it('refuses an answer that mixes public and private addresses', async () => {
    const mixed: Resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const result = await lookupOnce(mixed, false);
    expect(result.error?.code).toBe(BLOCKED_ADDRESS_CODE);
    expect(result.error?.message).not.toContain('10.0.0.5');
  });

  it('answers single-address lookups and honours the family asked for', async () => {
    const dual: Resolve = async () => [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ];
    const calls: unknown[][] = [];
    await new Promise<void>((done) =>
      createGuardedLookup(dual, false)('one.example', { family: 4 }, (...args) => {
        calls.push(args);
        done();
      }),
    );
    expect(calls).toEqual([[null, '1.1.1.1', 4]]);
  });

  it('passes DNS failures through and reports an empty answer as not found', async () => {
    const failing: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN x'), { code: 'EAI_AGAIN' });
    };
    expect((await lookupOnce(failing, true)).error?.code).toBe('EAI_AGAIN');
    expect((await lookupOnce(async () => [], true)).error?.code).toBe('ENOTFOUND');
    const onlyV6: Resolve = async () => [{ address: '2606:4700:4700::1111', family: 6 }];
    expect((await lookupOnce(onlyV6, true, 4)).error?.code).toBe('ENOTFOUND');
  });
});
