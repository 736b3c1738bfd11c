/**
 * The shell command the certificates page gives for enrolling an agent with a one-time token.
 *
 * It is a POSIX sh script run as `sh -c '<script>' agent-enroll <panel> <token>` so that it behaves
 * the same pasted into bash, zsh or fish, and so that its `exit` ends the script, not the user's
 * terminal. The script holds no single quote and no backslash (fish reads `\'` inside single
 * quotes), and every statement ends with `;`: a copy whose line breaks became spaces still runs.
 *
 * Safe to run again: it never replaces agent.key or agent.crt. When both are there and the
 * certificate is for the key, it says so and exits 0 without asking the panel (the token stays
 * unspent); any other file there is refused. A new key and certificate are made in a temporary
 * directory beside them, the certificate is checked against the key and the CA the panel sent,
 * and both are linked into place with `ln` (which, unlike `mv`, refuses to replace a file that
 * appeared meanwhile). Any failure exits 1 with a message and leaves nothing behind.
 */
const SCRIPT = [
  'set -u;',
  'umask 077;',
  'fail() { echo "enroll: $*" >&2; exit 1; };',
  'panel=$1; token=$2;',
  'if [ -e agent.key ] || [ -e agent.crt ]; then',
  '  if [ -s agent.key ] && [ -s agent.crt ] && key=$(openssl pkey -in agent.key -pubout 2>/dev/null) && crt=$(openssl x509 -in agent.crt -noout -pubkey 2>/dev/null) && [ "$key" = "$crt" ]; then',
  '    echo "enroll: agent.key and agent.crt are already here and belong together: nothing to do.";',
  '    exit 0;',
  '  fi;',
  '  fail "agent.key or agent.crt is already here but they are not a key and its certificate; nothing was changed. Move them away to enroll again.";',
  'fi;',
  'for tool in openssl curl jq; do command -v "$tool" >/dev/null || fail "$tool is needed but not installed"; done;',
  'tmp=$(mktemp -d ./.agent-enroll.XXXXXX) || fail "cannot make a temporary directory here";',
  'trap "rm -rf $tmp" EXIT;',
  'trap "exit 1" HUP INT TERM;',
  'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=agent -keyout "$tmp/agent.key" -out "$tmp/agent.csr" 2>"$tmp/log" || fail "openssl could not make a key: $(cat "$tmp/log")";',
  'ENROLL_TOKEN=$token jq -Rs "{token: env.ENROLL_TOKEN, csr: .}" <"$tmp/agent.csr" >"$tmp/request" || fail "jq could not write the request";',
  'status=$(curl -sS -o "$tmp/answer" -w "%{http_code}" -H "content-type: application/json" --data-binary "@$tmp/request" "$panel/api/enroll") || fail "could not reach $panel";',
  '[ "$status" = 200 ] || fail "the panel refused the enrollment (HTTP $status): $(jq -r ".error // empty" <"$tmp/answer" 2>/dev/null)";',
  'jq -er .cert <"$tmp/answer" >"$tmp/agent.crt" 2>/dev/null || fail "the answer holds no certificate";',
  'jq -er .caCert <"$tmp/answer" >"$tmp/ca.crt" 2>/dev/null || fail "the answer holds no CA certificate";',
  'key=$(openssl pkey -in "$tmp/agent.key" -pubout) && crt=$(openssl x509 -in "$tmp/agent.crt" -noout -pubkey 2>/dev/null) && [ "$key" = "$crt" ] || fail "the certificate the panel sent is not for this key: refused, nothing was written";',
  'openssl verify -CAfile "$tmp/ca.crt" "$tmp/agent.crt" >"$tmp/log" 2>&1 || fail "the certificate does not verify against the panel CA: $(cat "$tmp/log")";',
  'ln "$tmp/agent.key" agent.key 2>/dev/null || fail "could not put agent.key in place (did one appear meanwhile?); nothing was changed";',
  'ln "$tmp/agent.crt" agent.crt 2>/dev/null || { rm -f agent.key; fail "could not put agent.crt in place (did one appear meanwhile?); nothing was changed"; };',
  'echo "enroll: agent.key and agent.crt written (mode 0600).";',
].join('\n');

/** A single-quoted shell word; the panel's origin and a token never hold a quote, but a wrong value must not run. */
const quote = (word: string) => `'${word.replace(/'/g, `'"'"'`)}'`;

export function enrollCommand(panelOrigin: string, token: string): string {
  return `sh -c '\n${SCRIPT}\n' agent-enroll ${quote(panelOrigin)} ${quote(token)}`;
}
