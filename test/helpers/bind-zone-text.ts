// A test zone for bind9 (every name of the domain at one address, so pebble's HTTP-01 checks reach
// nginx too) and the secret in a TSIG key tsig-keygen printed: for bind on loopback (the integration
// stage) and bind inside the booted box (the system test).

export function zoneText(domain: string, ip: string): string {
  return [
    '$TTL 60',
    `@   IN SOA ns1.${domain}. hostmaster.${domain}. ( 1 60 60 3600 60 )`,
    `    IN NS  ns1.${domain}.`,
    `    IN A   ${ip}`,
    'ns1 IN A   127.0.0.1',
    `*   IN A   ${ip}`,
    '',
  ].join('\n');
}

/** The base64 secret of a `key` clause; throws naming `where` when there is none. */
export function tsigSecret(keyText: string, where: string): string {
  const secret = /secret "([^"]+)";/.exec(keyText)?.[1];
  if (!secret) throw new Error(`no secret in ${where}: ${keyText}`);
  return secret;
}
