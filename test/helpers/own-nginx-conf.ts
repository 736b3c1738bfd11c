// The main configuration of a test's own nginx (run with -p <prefix> -c nginx.conf): one worker,
// its pid, logs and temporary files under the prefix, the http vhosts in sites-enabled/ and, when
// given, more main-level text (a stream block, a load_module line first).
export function ownNginxConf({ before = '', after = '' }: { before?: string; after?: string } = {}): string {
  return `# a test's own nginx (run with -p <prefix> -c nginx.conf)
${before}worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path tmp/cb; proxy_temp_path tmp/p; fastcgi_temp_path tmp/f; uwsgi_temp_path tmp/u; scgi_temp_path tmp/s;
    include sites-enabled/*.conf;
}
${after}`;
}
