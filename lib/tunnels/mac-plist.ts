import { chiselArgs, chiselAuth, type ClientTunnel } from './client-args.ts';
import { escapeXml } from '../markup-escape.ts';

// The launchd job that keeps a chisel client running on a Mac.

const PLIST_LABEL = 'com.relaypanel.tunnel';
export const PLIST_FILENAME = `${PLIST_LABEL}.plist`;
/** Where the prerequisite installs chisel; launchd needs an absolute program path. */
const MAC_CHISEL_PATH = '/usr/local/bin/chisel';
// /tmp needs no directory to exist first and is writable by the user the agent runs as
const MAC_LOG_PATH = `/tmp/${PLIST_LABEL}.log`;
const MAC_ERROR_LOG_PATH = `/tmp/${PLIST_LABEL}.error.log`;
/** launchd starts jobs with a minimal PATH; Homebrew lives in /opt/homebrew (Apple silicon) or /usr/local. */
const MAC_PATH = '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

const INSTALLED_PATH = `~/Library/LaunchAgents/${PLIST_FILENAME}`;

export interface MacInstructions {
  download: string;
  install: string;
  uninstall: string;
  logs: string;
  status: string;
  prerequisite: string;
}


type PlistValue = string | boolean | readonly string[] | PlistDict;
interface PlistDict {
  readonly [key: string]: PlistValue;
}

function renderValue(value: PlistValue, indent: string): string[] {
  if (typeof value === 'boolean') return [`${indent}${value ? '<true/>' : '<false/>'}`];
  if (typeof value === 'string') return [`${indent}<string>${escapeXml(value)}</string>`];
  if (Array.isArray(value)) return [`${indent}<array>`, ...value.map((v: string) => `${indent}\t<string>${escapeXml(v)}</string>`), `${indent}</array>`];
  return [`${indent}<dict>`, ...renderEntries(value as PlistDict, `${indent}\t`), `${indent}</dict>`];
}

function renderEntries(dict: PlistDict, indent: string): string[] {
  return Object.entries(dict).flatMap(([key, value]) => [`${indent}<key>${escapeXml(key)}</key>`, ...renderValue(value, indent)]);
}

/**
 * The plist: the spec's keys, the exact client arguments, and the credential in AUTH when the
 * caller may have it (null leaves AUTH out).
 */
export function renderMacPlist(domain: string, tunnels: readonly ClientTunnel[], credential: { user: string; password: string } | null): string {
  const job: PlistDict = {
    Label: PLIST_LABEL,
    ProgramArguments: [MAC_CHISEL_PATH, ...chiselArgs(domain, tunnels)],
    KeepAlive: true,
    RunAtLoad: true,
    StandardOutPath: MAC_LOG_PATH,
    StandardErrorPath: MAC_ERROR_LOG_PATH,
    EnvironmentVariables: credential ? { PATH: MAC_PATH, AUTH: chiselAuth(credential) } : { PATH: MAC_PATH },
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    ...renderValue(job, ''),
    '</plist>',
    '',
  ].join('\n');
}

/** The commands around the plist; `panelUrl` is the panel's https origin (with its port unless 443). */
export function macInstructions(panelUrl: string): MacInstructions {
  return {
    download: `curl --fail --cert <your-client-cert> -o ${INSTALLED_PATH} '${panelUrl}/api/tunnels/mac-plist' && chmod 600 ${INSTALLED_PATH}`,
    install: `launchctl load -w ${INSTALLED_PATH}`,
    uninstall: `launchctl unload -w ${INSTALLED_PATH} && rm ${INSTALLED_PATH}`,
    logs: `tail -f ${MAC_LOG_PATH} ${MAC_ERROR_LOG_PATH}`,
    status: `launchctl list | grep ${PLIST_LABEL}`,
    prerequisite: `Install the chisel client at ${MAC_CHISEL_PATH} (brew install chisel && sudo ln -sf "$(brew --prefix)/bin/chisel" ${MAC_CHISEL_PATH}, or the release binary from https://github.com/jpillora/chisel/releases). The file holds the tunnel credential: keep it mode 600.`,
  };
}
