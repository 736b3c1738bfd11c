// The tallies' metric families print themselves (lib/metrics/tally.ts familyText): byte for byte
// what prom-client's registry prints for the same series, escapes and odd values included.
import client from 'prom-client';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { familyText, histogramSeries, type Series } from '../../../lib/metrics/tally.ts';

const s = suite('metric family text');

async function promClientText(name: string, help: string, type: 'counter' | 'histogram', values: Series[]): Promise<string> {
  const registry = new client.Registry();
  registry.registerMetric({ name, help, type, get: async () => ({ name, help, type, values, aggregator: 'sum' }) } as unknown as client.Metric);
  return (await registry.metrics()).replace(/\n$/, '');
}

s('counters: labels in their order, numbers as labels, escapes in help and label values, no labels', async () => {
  const values: Series[] = [
    { labels: { route: '/api/tunnels/:id', method: 'DELETE', status: 404 }, value: 2 },
    { labels: { route: 'back\\slash "quoted"\nnew line', method: 'GET', status: 200 }, value: 0.5 },
    { labels: {}, value: 7 },
    { labels: { odd: 'x' }, value: Number.NaN },
    { labels: { odd: 'y' }, value: Number.POSITIVE_INFINITY },
    { labels: { odd: 'z' }, value: Number.NEGATIVE_INFINITY },
    { metricName: 'other_name', labels: { a: '1' }, value: 1e-7 },
  ];
  const help = 'Requests\\answered\nby route';
  assert.is(familyText('relay_test_total', help, 'counter', values), await promClientText('relay_test_total', help, 'counter', values));
});

s('histograms: bucket, sum and count series with le after the labels', async () => {
  const values = histogramSeries('relay_test_seconds', { route: '/api/x', method: 'GET' }, [0.001, 0.01, 1], [3, 0, 2, 1], 1.234);
  assert.is(familyText('relay_test_seconds', 'Latency.', 'histogram', values), await promClientText('relay_test_seconds', 'Latency.', 'histogram', values));
});

s('a family without series is its HELP and TYPE lines', async () => {
  assert.is(familyText('relay_empty_total', 'Nothing yet.', 'counter', []), await promClientText('relay_empty_total', 'Nothing yet.', 'counter', []));
});

s.run();
