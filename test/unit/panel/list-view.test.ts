import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filterRows, pageOf, readChoice, readListParams, viewList, writeListParams, writeQuery, type ListSpec } from '../../../panel/src/list-view.ts';

// The panel's long lists (panel/src/list-view.ts): search, state, sort and page from the
// URL's query, computed without a browser.

interface Row { id: string; name: string; port: number; note: string | null; on: boolean }

const rows: Row[] = Array.from({ length: 120 }, (_, i) => ({
  id: `id-${i}`,
  name: `app-${String(i + 1).padStart(3, '0')}`,
  // ports out of creation order, so a sort by port is told from the server's order
  port: 30000 + ((i * 37) % 120),
  note: i % 10 === 0 ? 'Grafana Dashboards' : null,
  on: i % 3 !== 0,
}));

const spec: ListSpec<Row> = {
  key: (r) => r.id,
  text: (r) => [r.name, r.port, r.note],
  states: { enabled: (r) => r.on, disabled: (r) => !r.on },
  sorts: { name: (r) => r.name, port: (r) => r.port },
};

const params = (search: string) => readListParams(search);
const s = suite('panel: list view (search, state, sort, page)');

s('the query is read with defaults for what is missing or unreadable', () => {
  assert.equal(params(''), { q: '', state: '', sort: '', desc: false, page: 1 });
  assert.equal(params('?q=app&state=down&sort=-port&page=2'), { q: 'app', state: 'down', sort: 'port', desc: true, page: 2 });
  assert.is(params('?page=0').page, 1);
  assert.is(params('?page=two').page, 1);
  assert.is(params('?page=1.5').page, 1);
});

s('written back, defaults are left out and other parameters kept', () => {
  assert.is(writeListParams('?q=app&page=3&tab=x', { page: 1 }), '?q=app&tab=x');
  assert.is(writeListParams('', { sort: 'port', desc: true, page: 2 }), '?sort=-port&page=2');
  assert.is(writeListParams('?q=app', { q: '' }), '');
  assert.equal(params(writeListParams('', { q: 'a b&c', state: 'down' })), { q: 'a b&c', state: 'down', sort: '', desc: false, page: 1 });
});

s('the search matches any text field, case-insensitively, numbers included', () => {
  assert.equal(filterRows(rows, spec, params('?q=APP-11')).map((r) => r.name), Array.from({ length: 10 }, (_, i) => `app-11${i}`));
  assert.is(filterRows(rows, spec, params('?q=dashboards')).length, 12);
  assert.equal(filterRows(rows, spec, params('?q=30037')).map((r) => r.port), [30037]);
  assert.is(filterRows(rows, spec, params('?q=%20%20')).length, 120, 'blank is no search');
  assert.is(filterRows(rows, spec, params('?q=nothing-like-it')).length, 0);
});

s('the state filter keeps the rows in that state; an unknown state filters nothing', () => {
  assert.is(filterRows(rows, spec, params('?state=disabled')).length, 40);
  assert.ok(filterRows(rows, spec, params('?state=disabled')).every((r) => !r.on));
  assert.is(filterRows(rows, spec, params('?state=enabled&q=app-00')).length, 6);
  assert.is(filterRows(rows, spec, params('?state=bogus')).length, 120);
});

s('the sort orders by the column\'s value, numbers as numbers, both ways; none keeps the server\'s order', () => {
  assert.equal(filterRows(rows, spec, params('?sort=port')).slice(0, 3).map((r) => r.port), [30000, 30001, 30002]);
  assert.equal(filterRows(rows, spec, params('?sort=-port')).slice(0, 3).map((r) => r.port), [30119, 30118, 30117]);
  assert.equal(filterRows(rows, spec, params('')).slice(0, 2).map((r) => r.port), [30000, 30037]);
  const mixed: Row[] = ['b10', 'b9', 'B1'].map((name, i) => ({ ...rows[i]!, name }));
  assert.equal(filterRows(mixed, spec, params('?sort=name')).map((r) => r.name), ['B1', 'b9', 'b10'], 'natural, case-blind order');
});

s('a page of 50, its place in the list, and a page past the end shows the last', () => {
  const first = viewList(rows, spec, params(''));
  assert.equal([first.rows.length, first.from, first.to, first.matched, first.total, first.pages, first.page], [50, 1, 50, 120, 120, 3, 1]);
  const second = viewList(rows, spec, params('?page=2'));
  assert.equal(second.rows[0], rows[50]);
  assert.equal([second.from, second.to], [51, 100]);
  const beyond = viewList(rows, spec, params('?page=9'));
  assert.equal([beyond.page, beyond.from, beyond.to, beyond.rows.length], [3, 101, 120, 20]);
  const none = pageOf([], 120, 1);
  assert.equal([none.rows.length, none.from, none.to, none.pages, none.matched, none.total], [0, 0, 0, 1, 0, 120]);
  const searched = viewList(rows, spec, params('?q=app-11&page=2'));
  assert.equal([searched.page, searched.from, searched.to, searched.matched], [1, 1, 10, 10], 'a search shorter than a page');
});

// the TCP and UDP tunnel list's protocol filter, beside the HTTP tunnel list's parameters
const protocols = ['tcp', 'udp'] as const;

s('a second list\'s choice: one of its values, anything else none', () => {
  assert.is(readChoice('?streams=udp', 'streams', protocols), 'udp');
  assert.is(readChoice('?q=app&streams=tcp', 'streams', protocols), 'tcp');
  assert.is(readChoice('', 'streams', protocols), '');
  assert.is(readChoice('?streams=http', 'streams', protocols), '');
});

s('written beside the first list\'s parameters, left out when none', () => {
  assert.is(writeQuery('?q=app&page=2', { streams: 'udp' }), '?q=app&page=2&streams=udp');
  assert.is(writeQuery('?streams=udp', { streams: 'tcp' }), '?streams=tcp');
  assert.is(writeQuery('?q=app&streams=udp', { streams: '' }), '?q=app');
  assert.is(writeQuery('?streams=udp', { streams: '' }), '');
  assert.is(writeListParams('?streams=udp', { q: 'app' }), '?streams=udp&q=app', 'and the first list keeps the second\'s');
});

s.run();
