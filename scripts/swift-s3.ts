// A real S3-compatible server for the tests: OpenStack Swift with its s3api layer and tempauth (it
// checks SigV4 signatures), from Debian's packages, on loopback ports, in a temp folder it removes.
// The tests start it, make a private bucket and a `public-read` one through S3 (signed here with
// node:crypto, no SDK), upload a bundle, and fetch it anonymously as a pod would.
//
//   node scripts/swift-s3.ts install   installs the packages when missing (root; runs apt-get update first)
//   node scripts/swift-s3.ts start     starts a server and prints its endpoint until Ctrl-C
//
// The servers run on Debian's /usr/bin/python3 (not whatever python3 comes first on PATH).
// Anonymous reads go through Swift's own path (/v1/AUTH_test/<bucket>/<key>): s3api answers only
// signed requests, and Swift serves a container with a public-read ACL to anyone, a private one to no one.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PACKAGES = ['swift-proxy', 'swift-object', 'swift-container', 'swift-account', 'python3-swift', 'memcached'];
const ACCESS_KEY = 'test:tester';
const SECRET_KEY = 'testing';
const REGION = 'us-east-1';
const ACCOUNT = 'AUTH_test';

export interface SwiftS3 {
  /** `http://127.0.0.1:<port>`: S3 path-style endpoint and Swift's own API. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  /** Creates a bucket through S3; `public-read` lets anyone read its objects. */
  createBucket(bucket: string, acl?: 'private' | 'public-read'): Promise<void>;
  /** Uploads through S3 (SigV4, path-style). */
  putObject(bucket: string, key: string, body: Buffer): Promise<void>;
  /** Where an anonymous client (a pod) reads an object. */
  anonymousUrl(bucket: string, key: string): string;
  /** A signed request of any kind, for tests that check the signature is enforced. */
  s3(method: string, path: string, body?: Buffer, headers?: Record<string, string>, secret?: string): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

/** Why Swift cannot run here, or undefined when it can. */
export function swiftMissing(): string | undefined {
  const missing = ['swift-proxy-server', 'swift-object-server', 'swift-container-server', 'swift-account-server', 'swift-ring-builder', 'memcached'].filter(
    (binary) => spawnSync('sh', ['-c', `command -v ${binary}`]).status !== 0 && !existsSync(`/usr/bin/${binary}`)
  );
  if (spawnSync('/usr/bin/python3', ['-c', 'import swift.common.middleware.s3api']).status !== 0) missing.push('python3-swift (s3api)');
  return missing.length ? `missing: ${missing.join(', ')}. Install with: sudo node scripts/swift-s3.ts install` : undefined;
}

/** apt-get update and install of the packages, when any is missing (needs root). */
export function installSwift(): void {
  if (!swiftMissing()) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...PACKAGES]]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0) throw new Error(`apt-get ${args[0]} failed (${result.status}); Swift needs Debian's ${PACKAGES.join(', ')}.`);
  }
  const still = swiftMissing();
  if (still) throw new Error(`Swift is still not usable after the install: ${still}`);
}

/** Builds account, container and object rings of one device each (argv: the folder, then the three servers' ports). */
const RINGS = `
import os, sys
from swift.common.ring import RingBuilder
folder = sys.argv[1]
for name, port in zip(('account', 'container', 'object'), sys.argv[2:5]):
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': int(port), 'replication_ip': '127.0.0.1', 'replication_port': int(port), 'device': 'd1', 'weight': 100})
    builder.rebalance()
    builder.get_ring().save(os.path.join(folder, name + '.ring.gz'))
    builder.save(os.path.join(folder, name + '.builder'))
`;

export async function startSwiftS3(): Promise<SwiftS3> {
  const dir = mkdtempSync(join(tmpdir(), 'swift-s3-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((done) => child.once('exit', done)) : undefined)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [proxy, account, container, object, memcache] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    mkdirSync(join(dir, 'srv', 'd1'), { recursive: true });
    if (!existsSync('/etc/swift/swift.conf')) {
      mkdirSync('/etc/swift', { recursive: true });
      writeFileSync('/etc/swift/swift.conf', '[swift-hash]\nswift_hash_path_suffix = tests\nswift_hash_path_prefix = tests\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n');
    }
    // The three rings in one Python process, as `swift-ring-builder <ring>.builder create 6 1 1`, `add
    // r1z1-127.0.0.1:<port>/d1 100` and `rebalance` make them: nine processes that each load Swift took
    // 3 s of CPU, and their spawnSync held the test's worker still meanwhile.
    const rings = spawnSync('/usr/bin/python3', ['-c', RINGS, dir, String(account), String(container), String(object)], { encoding: 'utf8' });
    if (rings.status !== 0) throw new Error(`Building Swift's rings: ${rings.stderr || rings.stdout}`);
    const user = process.getuid?.() === 0 ? 'root' : (process.env.USER ?? 'root');
    const common = (port: number) =>
      `[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = ${port}\nworkers = 0\nuser = ${user}\nswift_dir = ${dir}\ndevices = ${join(dir, 'srv')}\nmount_check = false\nlog_level = WARNING\nlog_address = ${join(dir, 'no-syslog')}\n`;
    const server = (kind: string, port: number) => `${common(port)}[pipeline:main]\npipeline = ${kind}-server\n[app:${kind}-server]\nuse = egg:swift#${kind}\n`;
    writeFileSync(join(dir, 'account.conf'), server('account', account));
    writeFileSync(join(dir, 'container.conf'), server('container', container));
    writeFileSync(join(dir, 'object.conf'), server('object', object));
    writeFileSync(
      join(dir, 'proxy.conf'),
      common(proxy) +
        '[pipeline:main]\npipeline = catch_errors gatekeeper proxy-logging cache s3api tempauth proxy-logging proxy-server\n' +
        '[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n' +
        `[filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = ${SECRET_KEY} .admin\n` +
        `[filter:s3api]\nuse = egg:swift#s3api\nlocation = ${REGION}\n` +
        `[filter:cache]\nuse = egg:swift#memcache\nmemcache_servers = 127.0.0.1:${memcache}\n` +
        '[filter:catch_errors]\nuse = egg:swift#catch_errors\n[filter:gatekeeper]\nuse = egg:swift#gatekeeper\n[filter:proxy-logging]\nuse = egg:swift#proxy_logging\n'
    );
    const launch = (command: string, args: string[]) => {
      const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
      child.once('exit', (code) => {
        if (code) process.stderr.write(`${command} exited ${code}: ${stderr}\n`);
      });
      children.push(child);
    };
    launch('memcached', ['-l', '127.0.0.1', '-p', String(memcache), '-U', '0', '-u', user]);
    for (const kind of ['account', 'container', 'object']) launch(`swift-${kind}-server`, [join(dir, `${kind}.conf`)]);
    launch('swift-proxy-server', [join(dir, 'proxy.conf')]);
    const endpoint = `http://127.0.0.1:${proxy}`;
    await waitUntilUp(`${endpoint}/info`, children);

    const s3: SwiftS3['s3'] = async (method, path, body = Buffer.alloc(0), headers = {}, secret = SECRET_KEY) => {
      const signed = signV4({ method, url: new URL(path, endpoint), body, headers, accessKey: ACCESS_KEY, secretKey: secret, region: REGION });
      const response = await fetch(new URL(path, endpoint), { method, headers: signed, body: method === 'GET' || method === 'HEAD' ? undefined : body });
      return { status: response.status, text: await response.text() };
    };
    // A busy machine starves Swift's own servers, and s3api answers 503 SlowDown for them: ask again.
    const must = async (what: string, send: () => Promise<{ status: number; text: string }>) => {
      let last = { status: 0, text: '' };
      await waitFor(async () => (last = await send()).status !== 503, what).catch(() => undefined);
      if (last.status < 200 || last.status >= 300) throw new Error(`${what}: ${last.status} ${last.text.slice(0, 300)}`);
    };
    // The first authenticated request makes the account; a bucket needs it, so ask until it exists.
    await waitFor(async () => (await s3('GET', '/')).status === 200, 'the S3 account listing');
    return {
      endpoint,
      accessKey: ACCESS_KEY,
      secretKey: SECRET_KEY,
      createBucket: (bucket, acl = 'private') => must(`create bucket ${bucket}`, () => s3('PUT', `/${bucket}`, Buffer.alloc(0), { 'x-amz-acl': acl })),
      putObject: (bucket, key, body) => must(`put ${bucket}/${key}`, () => s3('PUT', `/${bucket}/${key}`, body, { 'content-type': 'application/gzip' })),
      anonymousUrl: (bucket, key) => `${endpoint}/v1/${ACCOUNT}/${bucket}/${key}`,
      s3,
      stop
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** AWS Signature Version 4 headers for one request (path-style, payload hashed). */
export function signV4(request: {
  method: string;
  url: URL;
  body: Buffer;
  headers: Record<string, string>;
  accessKey: string;
  secretKey: string;
  region: string;
  now?: Date;
}): Record<string, string> {
  const amzDate = (request.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = createHash('sha256').update(request.body).digest('hex');
  const headers: Record<string, string> = { ...lowerKeys(request.headers), host: request.url.host, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
  const names = Object.keys(headers).sort();
  const query = [...request.url.searchParams].map(([k, v]) => `${encode(k)}=${encode(v)}`).sort().join('&');
  const canonical = [
    request.method,
    request.url.pathname.split('/').map((part) => encode(decodeURIComponent(part))).join('/'),
    query,
    names.map((name) => `${name}:${headers[name].trim()}\n`).join(''),
    names.join(';'),
    payloadHash
  ].join('\n');
  const scope = `${day}/${request.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${request.secretKey}`).update(day).digest();
  for (const part of [request.region, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${request.accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  delete headers.host; // fetch sets it, to the same value
  return headers;
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function encode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url: string, children: ChildProcess[]): Promise<void> {
  await waitFor(async () => {
    const dead = children.find((child) => child.exitCode !== null);
    if (dead) throw new Error(`${dead.spawnfile} exited (${dead.exitCode}) while Swift started`);
    return (await fetch(url).catch(() => undefined))?.ok === true;
  }, `Swift's proxy at ${url}`);
}

/** Bounded: 150 tries, 30 s at most. */
async function waitFor(ready: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (let i = 0; i < 150 && Date.now() < until; i++) {
    if (await ready().catch((error: unknown) => (error instanceof Error && /exited/.test(error.message) ? Promise.reject(error) : false))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not come up within 30 s`);
}

const command = import.meta.url === `file://${process.argv[1]}` ? process.argv[2] : undefined;
if (command === 'install') {
  installSwift();
  console.log('Swift with s3api is installed.');
} else if (command === 'start') {
  const swift = await startSwiftS3();
  console.log(`Swift (s3api, tempauth) at ${swift.endpoint}; access key ${swift.accessKey}, secret ${swift.secretKey}. Ctrl-C stops it.`);
  process.once('SIGINT', () => void swift.stop().then(() => process.exit(0)));
}
