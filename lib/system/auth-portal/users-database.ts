// Authelia's users_database.yml as real YAML. Updates edit the parsed document in place (the
// `yaml` Document API) rather than re-rendering it, so an operator's comments, key order and
// extra fields survive every write made through the panel.
import { Document, isMap, isScalar, isSeq, parseDocument, type YAMLMap } from 'yaml';
import { assertUsername } from '../common/names.ts';
import { SystemError, type PortalUser } from '../types.ts';

const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const HEADER = ' Authelia users database, managed by relay-panel (the users API). Hand edits and comments are kept.';
type Fields = Omit<PortalUser, 'username'>;

/** Only the position and code of a syntax error: yaml's message quotes the line, which may hold a hash. */
function parse(text: string): Document.Parsed {
  const doc = parseDocument(text);
  const [error] = doc.errors;
  if (error) {
    const at = error.linePos?.[0];
    throw new SystemError(`users database is not valid YAML (${at ? `line ${at.line}, column ${at.col}: ` : ''}${error.code})`);
  }
  return doc;
}

const keyOf = (key: unknown): string => String(isScalar(key) ? key.value : key);

export function parseUsersDatabase(text: string): PortalUser[] {
  const data = parse(text).toJS() as { users?: Record<string, Partial<Record<keyof Fields, unknown>>> | null } | null;
  if (data !== null && typeof data !== 'object') throw new SystemError('users database must be a mapping with a `users` key');
  return Object.entries(data?.users ?? {})
    .map(([username, u]) => ({
      username,
      displayname: String(u?.displayname ?? username),
      email: String(u?.email ?? ''),
      groups: Array.isArray(u?.groups) ? u.groups.map(String) : [],
      password: String(u?.password ?? ''),
    }))
    .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
}

/**
 * Authelia 4.38 refuses to start on a users database without users: its file backend declares the
 * `users` map `valid:"required"` (FileDatabaseModel in internal/authentication), and govalidator
 * counts an empty map as missing ("could not validate the schema: users: non zero value required").
 * So no file the panel writes may have an empty `users` map.
 */
export function assertSomeUser(users: readonly PortalUser[]): void {
  if (users.length === 0) throw new SystemError('The users database must hold at least one user: Authelia refuses to start on an empty `users` map');
}

function assertHash(u: PortalUser): void {
  if (!BCRYPT.test(u.password)) throw new SystemError(`Password of '${u.username}' is not a bcrypt hash`);
}

function sameGroups(node: unknown, groups: readonly string[]): boolean {
  if (!isSeq(node)) return false;
  const current = node.items.map((i) => String(isScalar(i) ? i.value : i));
  return current.length === groups.length && current.every((g, i) => g === groups[i]);
}

/** Writes each field only when it changed: an untouched scalar keeps its comments and quoting. */
function updateEntry(doc: Document, entry: YAMLMap, u: PortalUser): boolean {
  let changed = false;
  for (const field of ['displayname', 'email', 'password'] as const) {
    if (entry.get(field) === u[field]) continue;
    if (field === 'password') assertHash(u);
    entry.set(field, u[field]);
    changed = true;
  }
  if (sameGroups(entry.get('groups', true), u.groups)) return changed;
  entry.set('groups', doc.createNode([...u.groups]));
  return true;
}

/**
 * The database text holding exactly `users`, made by editing `text` (null: no file yet). A hash
 * that changes (or a new user's) must be bcrypt; unchanged entries are left as the operator wrote them,
 * and with nothing to change the text comes back as it was (the serializer would reformat spacing).
 */
export function updateUsersDatabase(text: string | null, users: readonly PortalUser[]): string {
  assertSomeUser(users);
  const seen = new Set<string>();
  for (const u of users) {
    assertUsername(u.username);
    if (seen.has(u.username)) throw new SystemError(`Duplicate user '${u.username}'`);
    seen.add(u.username);
  }
  const doc: Document = text === null || text.trim() === '' ? new Document({}) : parse(text);
  if (doc.contents === null || (doc.contents && !isMap(doc.contents))) doc.contents = doc.createNode({}) as YAMLMap;
  if (text === null || text.trim() === '') doc.commentBefore = HEADER;
  let map = doc.get('users', true);
  if (!isMap(map)) {
    map = doc.createNode({}) as YAMLMap;
    doc.set('users', map);
  }
  const usersMap = map as YAMLMap;
  let changed = text === null || text.trim() === '';
  for (const item of [...usersMap.items]) {
    if (seen.has(keyOf(item.key))) continue;
    usersMap.delete(item.key);
    changed = true;
  }
  for (const u of users) {
    const existing = usersMap.items.find((item) => keyOf(item.key) === u.username)?.value;
    if (isMap(existing)) {
      changed = updateEntry(doc, existing, u) || changed;
      continue;
    }
    assertHash(u);
    const fields: Fields = { displayname: u.displayname, password: u.password, email: u.email, groups: [...u.groups] };
    usersMap.set(u.username, doc.createNode(fields));
    // a new file's `users: {}` is a flow map; entries read better as block YAML
    usersMap.flow = false;
    changed = true;
  }
  return changed || text === null ? doc.toString() : text;
}
