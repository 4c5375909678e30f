// A plain static file server on loopback: the team's own bundle host (a CDN, a web server in front
// of a bucket) as a pod would see it. Files are set by path; a path can be made to answer a status
// instead (403, 503…) a number of times. Every request is recorded with its headers, so tests can
// check that the action sent no credential.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticFileServer {
  url: string;
  files: Map<string, Buffer>;
  /** Answers `status` for `path` the next `times` requests (default: every request). */
  answer(path: string, status: number, times?: number): void;
  requests: { method: string; path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startStaticFileServer(): Promise<StaticFileServer> {
  const files = new Map<string, Buffer>();
  const answers = new Map<string, { status: number; times: number }>();
  const requests: StaticFileServer['requests'] = [];
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers });
    const forced = answers.get(path);
    if (forced) {
      if (--forced.times <= 0) answers.delete(path);
      response.writeHead(forced.status, { 'content-type': 'text/plain' }).end(`${forced.status}\n`);
      return;
    }
    const file = files.get(path);
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    // As the upload set it (the README's step passes archive-content-type): by the archive's extension.
    response.writeHead(200, { 'content-type': path.endsWith('.zip') ? 'application/zip' : 'application/gzip', 'content-length': file.length });
    response.end(request.method === 'HEAD' ? undefined : file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    files,
    answer: (path, status, times = Number.POSITIVE_INFINITY) => void answers.set(path, { status, times }),
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
}
