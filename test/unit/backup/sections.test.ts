// What a host backup carries for the tunnel server: its directory, with the host key clients pinned.
import { dirname } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inside, sectionsOf } from '../../../lib/backup/sections.ts';
import type { Config } from '../../../lib/config.ts';
import { hostKeyPath } from '../../../lib/system/tunnel-server/host-key.ts';
import { systemConfig } from '../../../lib/system/config.ts';

const s = suite('backup sections');

s('the tunnel-server section holds the host key (a restored box keeps its fingerprint) beside the credential', () => {
  const system = systemConfig({ driver: 'host' });
  const section = sectionsOf({ dataDir: '/var/lib/relay-panel', system } as Config).find((x) => x.name === 'tunnel-server');
  assert.ok(section, 'a tunnel-server section');
  assert.ok(inside(dirname(hostKeyPath(system.chisel.dir)), section.dir), `${hostKeyPath(system.chisel.dir)} under ${section.dir}`);
});

s.run();
