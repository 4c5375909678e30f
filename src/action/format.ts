// Numbers for people in a hurry: durations, sizes and instants as a log or summary shows them.

export function formatSeconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`;
  return formatDuration(ms);
}

/** `2m 05s`, `45 s`, `1h 02m`: for people reading a log. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** `2026-11-22 23:01 UTC`: an instant to the minute, in no time zone but UTC. */
export function formatUtc(iso: string): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? iso : new Date(at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** `2026-11-22 23:01 UTC (in 23h 59m)`: an instant and how far away it is. */
export function formatInstant(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const text = formatUtc(iso);
  const delta = at - now;
  return delta >= 0 ? `${text} (in ${formatDuration(delta)})` : `${text} (${formatDuration(-delta)} ago)`;
}

/** A count with its noun: "1 page", "2 pages" (`many` for a plural that is not one + s). */
export function formatCount(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Text placed inside the job summary's HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/**
 * A message written for the log, as HTML for the job summary: escaped, its `code` spans as code and
 * its links clickable (a log links a URL by itself; a summary's HTML block does not). A link ends
 * before a closing parenthesis or the sentence's last period or comma.
 */
export function messageHtml(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/https?:\/\/[^\s<>")]+?(?=[.,]?(?:\s|$|\)))/g, (url) => `<a href="${url}">${url}</a>`);
}
