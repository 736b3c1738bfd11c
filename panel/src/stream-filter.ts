// The TCP and UDP tunnel list's protocol filter, kept in the URL's query as `streams=tcp|udp` beside
// the HTTP tunnel list's own parameters: a link opens the list filtered, and Back undoes a filter.

export type StreamFilter = 'all' | 'tcp' | 'udp';

const PARAM = 'streams';

/** The filter a query string says; anything else is the whole list. */
export function readStreamFilter(search: string): StreamFilter {
  const value = new URLSearchParams(search).get(PARAM);
  return value === 'tcp' || value === 'udp' ? value : 'all';
}

/** The query string with `filter` in it (the whole list leaves it out), other parameters kept. */
export function writeStreamFilter(search: string, filter: StreamFilter): string {
  const query = new URLSearchParams(search);
  if (filter === 'all') query.delete(PARAM);
  else query.set(PARAM, filter);
  const text = query.toString();
  return text ? `?${text}` : '';
}
