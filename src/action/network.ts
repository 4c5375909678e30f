// What a failed connection was, read the same way for the platform, the storage and GitHub. A TLS
// failure is not a lost connection: the handshake failed before anything was sent, another try
// fails the same way, and the fix is on the runner (a proxy that inspects HTTPS shows its own
// certificate, which Node trusts only when told to).

/** The error's code, from it or the errors it wraps (fetch wraps the socket's error in a TypeError). */
export function networkCode(error: unknown): string | undefined {
  // Not `instanceof Error`: an error may come from another realm (a test's VM context).
  for (let at = error, depth = 0; typeof at === 'object' && at !== null && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return undefined;
}

/** OpenSSL's verification codes and Node's TLS errors: SELF_SIGNED_CERT_IN_CHAIN, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, … */
export function isTlsCode(code: string | undefined): code is string {
  return code !== undefined && /CERT|^UNABLE_TO_|^ERR_TLS_|^ERR_SSL_|^INVALID_CA$|^HOSTNAME_MISMATCH$/.test(code);
}

/** The sentence that says what a TLS failure means and what to do, for `host`. */
export function tlsAdvice(host: string, code: string): string {
  return (
    `the TLS certificate ${host} presented was refused (${code}), so the connection was never made and nothing was sent; it was not retried, since it fails the same way each time. ` +
    'Behind a proxy that inspects HTTPS (common on self-hosted runners), let Node trust the proxy\'s certificate: set NODE_EXTRA_CA_CERTS to the path of its CA certificate (a PEM file) in the env: of the job or in the runner\'s .env file. ' +
    'Otherwise the certificate is expired or names another host: check the URL.'
  );
}

/**
 * getaddrinfo's failures: ENOTFOUND, the name does not exist (a typo, a private zone this runner
 * cannot see), answers the same at every try, so it is not retried; EAI_AGAIN, the resolver could
 * not answer now, is transient and retried like a lost connection.
 */
export function isDnsCode(code: string | undefined): code is 'ENOTFOUND' | 'EAI_AGAIN' {
  return code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}

/** `could not resolve <host> (DNS): <fix>`, the sentence that names a DNS failure as one. */
export function dnsAdvice(host: string, code: 'ENOTFOUND' | 'EAI_AGAIN', fix: string): string {
  const what = code === 'EAI_AGAIN' ? "DNS, EAI_AGAIN: the runner's resolver did not answer, at every try" : 'DNS, ENOTFOUND: no such name';
  return `could not resolve ${host} (${what}): ${fix}, and that this runner's DNS resolves it (a name in a private zone needs a runner inside that network)`;
}

/** A host name that reaches this machine only: localhost, 127.0.0.0/8 or [::1] (as URL.hostname writes them). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
