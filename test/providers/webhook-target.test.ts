import { describe, expect, it } from 'vitest';
import {
  isPrivateAddress,
  resolveTarget,
  urlProblem,
  WEBHOOK_LOOKUP_TIMEOUT_MS,
} from '../../providers/webhook-target.js';

const production = { allowLocal: false };

describe('webhook targets', () => {
  it('tells private, loopback, link-local and reserved addresses from public ones (IPv4, IPv6, mapped)', () => {
    for (const address of [
      '10.0.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.20.1.1',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:a00:1',
      '64:ff9b::10.0.0.1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('IPv6: only global unicast (2000::/3) outside its special-purpose blocks; embedded IPv4 forms are judged by their IPv4', () => {
    for (const address of [
      '::127.0.0.1', // IPv4-compatible (::/96)
      '::8.8.8.8',
      '::ffff:0:7f00:1', // IPv4-translated (::ffff:0:0/96)
      '::ffff:0:808:808',
      '64:ff9b:1::a9fe:a9fe', // local-use NAT64 (64:ff9b:1::/48)
      '64:ff9b::a9fe:a9fe', // well-known NAT64 of 169.254.169.254
      '2002:a9fe:a9fe::', // 6to4 of 169.254.169.254
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo (2001::/32)
      '2001:2::1', // benchmarking, inside 2001::/23
      '2001:db8::1',
      '3fff::1', // documentation (3fff::/20)
      '5f00::1', // outside 2000::/3
      '100::1',
      'fe80::1%eth0',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of [
      '2606:4700::1111',
      '2a00:1450:4001::200e',
      '2002:808:808::1',
      '64:ff9b::808:808',
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('production needs https and no credentials; local targets may use http', () => {
    expect(urlProblem('http://hooks.example.com/', production)).toBe('HTTPS_REQUIRED');
    expect(urlProblem('https://a:b@hooks.example.com/', production)).toBe('CREDENTIALS_IN_URL');
    expect(urlProblem('https://localhost:8443/', production)).toBe('PRIVATE_ADDRESS');
    expect(urlProblem('mailto:x@example.com', production)).toBe('NOT_A_URL');
    expect(urlProblem('https://hooks.example.com/in', production)).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/', { allowLocal: true })).toBeNull();
    expect(urlProblem('http://a:b@127.0.0.1/', { allowLocal: true })).toBe('CREDENTIALS_IN_URL');
  });

  it('a name that resolves to a private address is refused (checked again at every attempt: DNS rebinding)', async () => {
    const rebinding = async () => [{ address: '10.0.0.7', family: 4 }];
    expect(await resolveTarget('https://hooks.example.com/in', production, rebinding)).toEqual({
      problem: 'PRIVATE_ADDRESS',
    });
    const mixed = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(await resolveTarget('https://hooks.example.com/in', production, mixed)).toEqual({
      problem: 'PRIVATE_ADDRESS',
    });
    const resolved = await resolveTarget('https://hooks.example.com/in', production, async () => [
      { address: '93.184.215.14', family: 4 },
    ]);
    expect(resolved).toMatchObject({ address: '93.184.215.14', family: 4 });
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await resolveTarget('https://nowhere.example/', production, failing)).toEqual({
      problem: 'UNRESOLVABLE',
    });
  });

  it("a lookup that does not answer in time is UNRESOLVABLE (a few seconds, not the system resolver's own)", async () => {
    expect(WEBHOOK_LOOKUP_TIMEOUT_MS).toBeLessThanOrEqual(5_000);
    let asked = 0;
    const hanging = () => {
      asked += 1;
      return new Promise<never>(() => {});
    };
    const started = performance.now();
    const answer = await Promise.race([
      resolveTarget('https://slow-dns.example/in', production, hanging, 100),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 2 s'), 2_000)),
    ]);
    expect(answer).toEqual({ problem: 'UNRESOLVABLE' });
    expect(asked).toBe(1);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
