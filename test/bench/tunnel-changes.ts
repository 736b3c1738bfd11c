// `npm run bench -- --only=tunnel-changes`: a tunnel's create, toggle and delete end to end through
// the API, on real nginx (test/infra/harness.ts: nginx, pebble + certbot, dnsmasq on loopback), with
// its certificate already in place (so no ACME order is timed: the figure is the vhost, the authfile
// and the record), at 10 and at 1,000 tunnel vhosts, and ten toggles sent at once, in both
// certificate modes: per-name (each name its own lineage) and wildcard (every tunnel served by the
// base domain's lineage). One certificate is issued by pebble; the other lineages are copies of it
// (nginx does not check names). Each mode runs on its own infrastructure (tunnel-changes-pass.ts).
// Figures are medians of ROUNDS, each size and mode beside the others in one run, with the load average.
// Run alone: node --import ./test/helpers/register.mjs test/bench/tunnel-changes.ts [--sizes=10,1000] [--rounds=3]
import { measureMode, type CertMode, type Figures, type Row } from './tunnel-changes-pass.ts';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SIZES = arg('sizes', '10,1000').split(',').map(Number).sort((a, b) => a - b);
const ROUNDS = Number(arg('rounds', '3'));
const CONCURRENT = 10;
const MODES: CertMode[] = ['per-name', 'wildcard'];

console.log(`tunnel-changes: create, toggle and delete through the API on real nginx with the certificate in place, per-name and wildcard (median of ${ROUNDS})`);
const rows: Row[] = [];
for (const mode of MODES) rows.push(...(await measureMode(mode, SIZES, ROUNDS, CONCURRENT)));

const ms = (x: number) => `${x.toFixed(0)} ms`;
for (const { mode, size, figures: f, load } of rows) {
  console.log(`  ${mode.padEnd(8)} ${String(size).padStart(5)} vhosts: create ${ms(f.create)}, disable ${ms(f.disable)}, enable ${ms(f.enable)}, delete ${ms(f.delete)}; ` +
    `${CONCURRENT} toggles at once: median ${ms(f.concurrentMedian)}, last ${ms(f.concurrentLast)} (load ${load})`);
}
const figuresOf = (mode: CertMode, size: number | undefined) => rows.find((r) => r.mode === mode && r.size === size)?.figures;
const ratios = (over: Figures | undefined, under: Figures | undefined) => {
  const r = (k: keyof Figures) => `${((over?.[k] ?? NaN) / (under?.[k] ?? NaN)).toFixed(2)}x`;
  return `create ${r('create')}, disable ${r('disable')}, enable ${r('enable')}, delete ${r('delete')}, ${CONCURRENT} at once (last) ${r('concurrentLast')}`;
};
const [small, large] = [SIZES[0], SIZES.at(-1)];
if (small !== large) for (const mode of MODES) console.log(`  ${mode}: ${large} / ${small} vhosts: ${ratios(figuresOf(mode, large), figuresOf(mode, small))}`);
console.log(`  wildcard / per-name at ${large} vhosts: ${ratios(figuresOf('wildcard', large), figuresOf('per-name', large))}`);
