// The lines a start prints: where it listens (the first line, which tests and supervisors read),
// and in development mode which address to open in a browser, where the panel walks the onboarding.

export interface BannerFacts {
  url: string;
  mode: string;
  driver: string;
  configFile: string;
}

/** An address a browser on this machine can open: a wildcard bind answers on loopback. */
export function browserUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

export function startBanner({ url, mode, driver, configFile }: BannerFacts): string[] {
  const lines = [`relay-panel listening on ${url} (${mode} mode, ${driver} system)`];
  if (mode === 'development') lines.push(`  open ${browserUrl(url)}/ in a browser: the panel walks you through the onboarding`);
  lines.push(`  configuration: ${configFile}`, `  try: curl ${browserUrl(url)}/api/health`);
  if (mode === 'development') lines.push(`       curl ${browserUrl(url)}/api/onboarding/status`);
  return lines;
}
