// The network guard: a connection to anything but loopback fails, naming the host, so no test can
// reach the internet or depend on a DNS answer. Plain JavaScript because it is loaded two ways: by
// jest's set-up in each worker, and by `node --import` (NODE_OPTIONS, set by the global set-up) in
// every process a test starts, the bundles under dist/ included, which no jest module reaches.
import net from 'node:net';

const GUARD = Symbol.for('static-export-action.network-guard');

/** Loopback names and addresses, and unix sockets (no host at all). */
export function isLoopback(host) {
  if (host === undefined || host === null || host === '') return true;
  const name = String(host).toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127\./.test(name) || name === '::1' || /^::ffff:127\./.test(name);
}

/** The host and port a `Socket#connect` call was given, in each of the forms net accepts. */
function target(args) {
  let first = args[0];
  // net.connect() and http hand the socket their normalized [options, callback] pair.
  if (Array.isArray(first)) first = first[0];
  // http hands `path: null` when there is none: only a string is a unix socket.
  if (first !== null && typeof first === 'object') return typeof first.path === 'string' ? { path: first.path } : { host: first.host ?? 'localhost', port: first.port };
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

/** Installs the guard once per process; the shared state lives on the net module, which every realm of a jest worker shares. */
export function installNetworkGuard({ inChild = false } = {}) {
  if (net.Socket[GUARD]) return net.Socket[GUARD];
  const state = { violations: [] };
  net.Socket[GUARD] = state;
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const to = target(args);
    if (to.path !== undefined || isLoopback(to.host)) return connect.apply(this, args);
    const where = `${to.host}${to.port === undefined ? '' : `:${to.port}`}`;
    const message = `Network guard: a connection to ${where} was refused. Tests reach loopback only: serve it from an emulator on 127.0.0.1 (a link the action downloads too).`;
    state.violations.push(where);
    if (inChild) {
      // A child's exit code is all its test sees: end it at once, saying why, so no test passes on
      // a connection failure the guard caused.
      process.stderr.write(`${message}\n`);
      process.exit(86);
    }
    const error = Object.assign(new Error(message), { code: 'ENETGUARD' });
    process.nextTick(() => this.destroy(error));
    return this;
  };
  return state;
}

/** The hosts refused since the last call, and forgets them. */
export function takeViolations() {
  const state = net.Socket[GUARD];
  if (!state) return [];
  return state.violations.splice(0);
}
