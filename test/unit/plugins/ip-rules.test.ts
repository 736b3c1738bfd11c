// The spellings a push policy's address rules take and refuse, and how the less common forms
// match. ipaddr.js reads more than the rules ever took (short, octal and hex IPv4) and reads
// `::a.b.c.d` as a mapped address; these pin the meaning the rules had with node's isIP.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IpEntry, sourceAllowed } from '../../../lib/plugins/ip-rules.ts';

const s = suite('push policy address rules');

const MESSAGE = 'must be an IPv4 or IPv6 address or CIDR range (e.g. 192.168.1.0/24)';
const accepted = (entry: string) => IpEntry.safeParse(entry).success;

s('addresses and ranges written the usual way are taken', () => {
  for (const entry of ['10.0.0.5', '192.168.1.0/24', '0.0.0.0/0', '192.168.1.5/024', 'fd00::/8', '::/0', '::ffff:192.168.1.0/120', '::1.2.3.4', 'fe80::1%br-lan', 'fe80::1%eth0/64']) {
    assert.ok(accepted(entry), entry);
  }
});

s('IPv4 ipaddr.js would read but the rules never took is refused, with the message', () => {
  for (const entry of ['10.1', '10.1/8', '010.0.0.1', '0x0a.0.0.1', '167772161', '10.0.0.256', '::ffff:010.0.0.1', '::ffff:0x0a.0.0.1']) {
    const result = IpEntry.safeParse(entry);
    assert.not.ok(result.success, entry);
    assert.is(result.error?.issues[0]?.message, MESSAGE, entry);
  }
});

s('prefixes: one to three digits, bounded by the family; one slash', () => {
  for (const entry of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/0024', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8/8', '/8', 'fe80::1%/64', '1.2.3.4%eth0']) {
    assert.not.ok(accepted(entry), entry);
  }
});

s('host bits in a range are ignored, as a network', () => {
  assert.ok(sourceAllowed('192.168.1.200', ['192.168.1.5/24'], []));
});

s('an IPv4 client matches IPv6 ranges of mapped addresses; an IPv6 client never an IPv4 range', () => {
  assert.ok(sourceAllowed('10.1.2.3', ['::ffff:10.0.0.0/104'], []));
  assert.ok(sourceAllowed('10.1.2.3', ['::/0'], []));
  assert.ok(sourceAllowed('::ffff:a01:203', ['10.0.0.0/8'], []), 'a mapped client in hex');
  assert.not.ok(sourceAllowed('fd00::1', ['0.0.0.0/0'], []));
});

s('::a.b.c.d is the IPv4-compatible address, not the IPv4 client a.b.c.d', () => {
  assert.not.ok(sourceAllowed('1.2.3.4', ['::1.2.3.4'], []));
  assert.ok(sourceAllowed('::102:304', ['::1.2.3.4'], []));
  assert.ok(sourceAllowed('1.2.3.4', [], ['::1.2.3.4']), 'nor is it denied');
});

s('a zone takes no part in matching', () => {
  assert.ok(sourceAllowed('fe80::1', ['fe80::1%br-lan'], []));
  assert.ok(sourceAllowed('fe80::1%wg-0', ['fe80::/64'], []));
});

s('a client address in a form the rules refuse is unknown: refused while there are rules', () => {
  for (const client of ['10.1', '167772161', '010.0.0.1', 'not-an-ip', '']) {
    assert.not.ok(sourceAllowed(client, ['0.0.0.0/0', '::/0'], []), client);
    assert.ok(sourceAllowed(client, [], []), `${client}: no rules`);
  }
});

s('a stored entry that does not parse (a hand edit) closes the rule: a deny it cannot read is never skipped', () => {
  assert.not.ok(sourceAllowed('203.0.113.7', [], ['203.0.113.0/24x']), 'an unreadable deny');
  assert.not.ok(sourceAllowed('198.51.100.1', ['10.0.0.0/8', 'ten'], []), 'an unreadable allow');
  assert.ok(sourceAllowed('198.51.100.1', [], ['203.0.113.0/24']), 'the readable rule alone lets it pass');
});

s.run();
