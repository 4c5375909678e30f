// DNS answers a test decides, the same on every machine. Names under .localhost pass the network
// guard (setup/network-guard.mjs counts them as loopback), and this override answers them before any
// resolver is asked: a name that does not exist (ENOTFOUND), a resolver that does not answer
// (EAI_AGAIN), or 127.0.0.1 for a name that is not loopback to the action (a bucket "inside the
// cluster"). Node's sockets (http, https, and fetch's undici) all resolve through dns.lookup.
import dns from 'node:dns';

export type DnsAnswer = 'ENOTFOUND' | 'EAI_AGAIN' | '127.0.0.1';

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

/** The names the override answered, in order: how many tries a failure got. */
export const answered: string[] = [];

/** Answers `answers`' names as given until the returned function is called; any other name as before. */
export function overrideDns(answers: Record<string, DnsAnswer>): () => void {
  const original = dns.lookup;
  const lookup = (hostname: string, options: unknown, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    const answer = answers[hostname.toLowerCase()];
    if (answer === undefined) return (original as (...args: unknown[]) => void)(hostname, options, callback);
    answered.push(hostname);
    if (answer === '127.0.0.1') {
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
      return process.nextTick(() => (all ? done(null, [{ address: answer, family: 4 }]) : done(null, answer, 4)));
    }
    const error = Object.assign(new Error(`getaddrinfo ${answer} ${hostname}`), { code: answer, errno: answer === 'ENOTFOUND' ? -3008 : -3001, syscall: 'getaddrinfo', hostname });
    process.nextTick(() => done(error));
  };
  dns.lookup = lookup as typeof dns.lookup;
  return () => {
    dns.lookup = original;
  };
}
