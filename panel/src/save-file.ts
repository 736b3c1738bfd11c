// Hands a file made in the page (a fetched archive, a PEM block from an answer) to the browser's
// downloads.
const KEEP_URL_MS = 60_000;

export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel a download the browser has not started reading yet.
  setTimeout(() => URL.revokeObjectURL(url), KEEP_URL_MS);
}
