/**
 * Endings of files a web server or a visitor's machine may execute: server-side scripts (in case a
 * handler is ever configured for them), CGI, and native executables or installers. Static sites
 * need none of them.
 */
const DISALLOWED = [
  '.php', '.php3', '.php4', '.php5', '.php7', '.php8', '.phtml', '.phar', '.phps',
  '.cgi', '.fcgi', '.pl', '.py', '.rb', '.sh', '.bash', '.zsh', '.ps1', '.psm1',
  '.asp', '.aspx', '.ashx', '.asmx', '.cshtml', '.jsp', '.jspx', '.war', '.shtml', '.htaccess',
  '.exe', '.dll', '.so', '.dylib', '.com', '.bat', '.cmd', '.msi', '.scr', '.vbs', '.wsf', '.jar', '.elf', '.run',
];

/**
 * The disallowed ending of the file name, or undefined. Trailing dots and spaces do not hide an
 * ending: some servers and file systems drop them (`shell.php.` is `shell.php` there).
 */
export function disallowedExtension(name: string): string | undefined {
  const lower = name.toLowerCase().replace(/[.\s]+$/, '');
  return DISALLOWED.find((ending) => lower.endsWith(ending));
}

export const DISALLOWED_EXTENSIONS: readonly string[] = DISALLOWED;
