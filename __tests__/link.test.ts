import { describe, expect, it } from '@jest/globals';
import { jobIdFromLink, linkExpiry, linkSecrets, redactLink } from '../src/values/link.ts';

const S3_SIGNATURE = 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
const S3_V4 =
  'https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz' +
  '?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD' +
  '&X-Amz-Credential=ASIAIOSFODNN7EXAMPLE%2F20261121%2Fus-east-1%2Fs3%2Faws4_request' +
  '&X-Amz-Date=20261121T230102Z&X-Amz-Expires=86400' +
  '&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEJr%2F%2F%2F%2F%2F%2F%2F%2F%2F%2FwEaCXVzLWVhc3QtMSJGMEQCIBv' +
  `&X-Amz-Signature=${S3_SIGNATURE}&X-Amz-SignedHeaders=host&x-id=GetObject`;

const GCS_SIGNATURE =
  '3f2a9c1d7e5b8a4f6c0d2e9b1a7f3c5d8e0b4a6f2c9d1e7b5a3f8c0d6e2b9a4f1c7d5e3b8a0f6c2d9e1b7a5f3c8d0e6b4a2f9c1d7e5b3a8f0c6d2e9b1a7f4c5d8e0b3a6f2c9d1e7b5a4f8c0d6e3b9a2f1c7d5e8b4a0f6c3d9e2b7a5f1c8d0e6b4a3f9c2d7e5b1a8f0c6d3e9b2a7f4c5d8e1b0a6f3c9d2e7b5a4f8';
const GCS_V4 =
  'https://storage.gcs.invalid/example-static-exports/exports/acme/se_3f9a2c1b8e7d4a06/bundle.tar.gz' +
  '?X-Goog-Algorithm=GOOG4-RSA-SHA256' +
  '&X-Goog-Credential=exporter%40example-project.iam.gserviceaccount.com%2F20261121%2Fauto%2Fstorage%2Fgoog4_request' +
  `&X-Goog-Date=20261121T230102Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=${GCS_SIGNATURE}`;

const AZURE_SIGNATURE = 'pZ7sWqLh3mK9vT2xY4nB8cR1dF6gJ0aE5uI3oP7qS2w%3D';
const AZURE_SAS =
  'https://exampleaccount.blob.core.windows.invalid/static-exports/se_3f9a2c1b8e7d4a06/bundle.tar.gz' +
  '?sp=r&st=2026-11-21T23%3A01%3A02Z&se=2026-11-22T23%3A01%3A02Z&spr=https&sv=2022-11-02&sr=b' +
  `&sig=${AZURE_SIGNATURE}`;

const CLOUDFRONT_SIGNATURE =
  'Nql641NHEUkUaXQHZINK1FZ~SYeUSoBJMxjdgqrzIdzV2gyEXPDNv0pYdWJkflDKJ3xIu7lbwRpSkG98NBlgPi4ZJpRRnVX4kXAJK6tdNx6FucDB7OVqzcxkxHsGFd8VCG1BkC-Afh9~lOCMIYHIaiOB6~5jt9w2EOwi6sIIqrg_';
const CLOUDFRONT =
  'https://d111111abcdef8.cloudfront.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz' +
  `?Expires=1795388462&Signature=${CLOUDFRONT_SIGNATURE}&Key-Pair-Id=K2JCJMDEHXQW5F`;

const S3_V2_SIGNATURE = 'vjbyPxybdZaNmGa%2ByT272YEAiv4%3D';
const S3_V2 =
  'https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz' +
  `?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1795388462&Signature=${S3_V2_SIGNATURE}`;

describe('linkExpiry', () => {
  it('reads an S3 SigV4 link: signing time plus lifetime', () => {
    expect(linkExpiry(S3_V4)).toEqual(new Date('2026-11-22T23:01:02Z'));
  });

  it('reads S3 parameter names in any letter case', () => {
    const lower = 'https://b.s3.invalid/k?x-amz-date=20261121T230102Z&x-amz-expires=3600&x-amz-signature=abc';
    expect(linkExpiry(lower)).toEqual(new Date('2026-11-22T00:01:02Z'));
  });

  it('reads a Google Cloud Storage V4 link', () => {
    expect(linkExpiry(GCS_V4)).toEqual(new Date('2026-11-21T23:16:02Z'));
  });

  it('reads an Azure SAS link, with its URL-encoded colons', () => {
    expect(linkExpiry(AZURE_SAS)).toEqual(new Date('2026-11-22T23:01:02Z'));
  });

  it('reads the other forms Azure allows for se', () => {
    const azure = (se: string) => `https://a.blob.core.windows.invalid/c/b.tar.gz?sp=r&se=${se}&sv=2022-11-02&sr=b&sig=x`;
    expect(linkExpiry(azure('2026-11-22'))).toEqual(new Date('2026-11-22T00:00:00Z'));
    expect(linkExpiry(azure('2026-11-22T23%3A01Z'))).toEqual(new Date('2026-11-22T23:01:00Z'));
    expect(linkExpiry(azure('2026-11-22T23%3A01%3A02.5%2B01%3A00'))).toEqual(new Date('2026-11-22T22:01:02.500Z'));
  });

  it('reads a CloudFront link and an S3 SigV2 link (epoch seconds)', () => {
    expect(linkExpiry(CLOUDFRONT)).toEqual(new Date('2026-11-22T23:01:02Z'));
    expect(linkExpiry(S3_V2)).toEqual(new Date('2026-11-22T23:01:02Z'));
  });

  it.each([
    ['not a URL', 'bundle.tar.gz?X-Amz-Date=20261121T230102Z&X-Amz-Expires=60'],
    ['no expiry at all', 'https://cdn.example.com/se_3f9a2c1b8e7d4a06/bundle.tar.gz'],
    ['an impossible month', 'https://b.s3.invalid/k?X-Amz-Date=20261321T230102Z&X-Amz-Expires=60'],
    ['an impossible day', 'https://b.s3.invalid/k?X-Amz-Date=20260230T230102Z&X-Amz-Expires=60'],
    ['a date in another format', 'https://b.s3.invalid/k?X-Amz-Date=2026-11-21T23:01:02Z&X-Amz-Expires=60'],
    ['a non-numeric lifetime', 'https://b.s3.invalid/k?X-Amz-Date=20261121T230102Z&X-Amz-Expires=1h'],
    ['a negative lifetime', 'https://b.s3.invalid/k?X-Amz-Date=20261121T230102Z&X-Amz-Expires=-60'],
    ['a signing time without lifetime', 'https://b.s3.invalid/k?X-Amz-Date=20261121T230102Z'],
    ['a lifetime without signing time', 'https://storage.gcs.invalid/b/k?X-Goog-Expires=900'],
    ['a bad Google date', 'https://storage.gcs.invalid/b/k?X-Goog-Date=yesterday&X-Goog-Expires=900'],
    ['an Azure expiry that is not a date', 'https://a.blob.core.windows.invalid/c/b?se=tomorrow&sig=x'],
    ['an impossible Azure date', 'https://a.blob.core.windows.invalid/c/b?se=2026-02-30T00%3A00%3A00Z&sig=x'],
    ['a non-numeric CloudFront expiry', 'https://d1.cloudfront.invalid/b?Expires=soon&Signature=x&Key-Pair-Id=K'],
    ['CloudFront Expires in the wrong case', 'https://d1.cloudfront.invalid/b?expires=1795388462&Signature=x'],
    ['Azure se in the wrong case', 'https://a.blob.core.windows.invalid/c/b?SE=2026-11-22&sig=x']
  ])('is undefined for %s', (_, link) => {
    expect(linkExpiry(link)).toBeUndefined();
  });
});

describe('jobIdFromLink', () => {
  // The next API's ids and archive, as its description's example link has them (openapi/platform/static-export-next.json).
  it("finds a job id of the platform's next API (24 hex digits, export.zip), and keeps it in the shown link", () => {
    const link = 'https://mintlify-static-exports.s3.invalid/exports/2026/6520f3a1c9b1a20012ab34cd/export.zip?X-Amz-Signature=abcdef0123456789';
    expect(jobIdFromLink(link)).toBe('6520f3a1c9b1a20012ab34cd');
    expect(redactLink(link)).toBe('https://mintlify-static-exports.s3.invalid/exports/…/6520f3a1c9b1a20012ab34cd/export.zip?…');
    // Hex of another length is not a job id.
    expect(jobIdFromLink('https://cdn.invalid/6520f3a1c9b1a20012ab34cd00/export.zip')).toBeUndefined();
  });

  it('finds the job id that starts the path', () => {
    expect(jobIdFromLink(S3_V4)).toBe('se_3f9a2c1b8e7d4a06');
    expect(jobIdFromLink('https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Expires=60')).toBe(
      'se_3f9a2c1b8e7d4a06'
    );
  });

  it('finds it under a prefix', () => {
    expect(jobIdFromLink(GCS_V4)).toBe('se_3f9a2c1b8e7d4a06');
    expect(jobIdFromLink('https://s3.us-east-1.invalid/bucket/exports/se_0a1b2c3d4e5f6a7b/bundle.tar.gz')).toBe(
      'se_0a1b2c3d4e5f6a7b'
    );
  });

  it('is undefined when no path segment is a job id', () => {
    expect(jobIdFromLink('https://cdn.example.com/bundles/latest.tar.gz')).toBeUndefined();
    expect(jobIdFromLink('https://cdn.example.com/bundles/latest.tar.gz?job=se_3f9a2c1b8e7d4a06')).toBeUndefined();
    expect(jobIdFromLink('https://cdn.example.com/bundles/se_3f9a2c1b8e7d4a06.tar.gz')).toBeUndefined();
    expect(jobIdFromLink('se_3f9a2c1b8e7d4a06/bundle.tar.gz')).toBeUndefined();
  });
});

describe('redactLink', () => {
  it('keeps scheme, host and a short path, and hides the query', () => {
    expect(redactLink(S3_V4)).toBe('https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?…');
    expect(redactLink(AZURE_SAS)).toBe(
      'https://exampleaccount.blob.core.windows.invalid/static-exports/se_3f9a2c1b8e7d4a06/bundle.tar.gz?…'
    );
  });

  it.each([
    ['S3 SigV4', S3_V4, [S3_SIGNATURE, 'ASIAIOSFODNN7EXAMPLE', 'IQoJb3JpZ2luX2VjEJr']],
    ['Google V4', GCS_V4, [GCS_SIGNATURE, 'exporter']],
    ['Azure SAS', AZURE_SAS, [AZURE_SIGNATURE, 'sig=']],
    ['CloudFront', CLOUDFRONT, [CLOUDFRONT_SIGNATURE, 'K2JCJMDEHXQW5F']],
    ['S3 SigV2', S3_V2, [S3_V2_SIGNATURE, 'AKIAIOSFODNN7EXAMPLE']]
  ])('never shows the secrets of a %s link', (_, link, secrets) => {
    const redacted = redactLink(link);
    for (const secret of secrets) expect(redacted).not.toContain(secret);
    expect(redacted).toMatch(/\?…$/);
  });

  it('shortens a long path to its first and last segments and the job id', () => {
    expect(redactLink(GCS_V4)).toBe('https://storage.gcs.invalid/example-static-exports/…/se_3f9a2c1b8e7d4a06/bundle.tar.gz?…');
    expect(redactLink('https://cdn.example.com/a/b/c/d/bundle.tar.gz')).toBe('https://cdn.example.com/a/…/bundle.tar.gz');
    expect(redactLink('https://cdn.example.com/a/b/bundle.tar.gz')).toBe('https://cdn.example.com/a/b/bundle.tar.gz');
  });

  it('drops credentials in the authority and the fragment, and keeps the port', () => {
    expect(redactLink('https://user:secret@cdn.example.com:8443/se_1/bundle.tar.gz?token=abc#part')).toBe(
      'https://cdn.example.com:8443/se_1/bundle.tar.gz?…'
    );
  });

  it('shows nothing of a string that is not a URL', () => {
    expect(redactLink('bundle.tar.gz?X-Amz-Signature=abc')).toBe('(not a valid link)');
  });
});

describe('linkSecrets', () => {
  it('masks the signature, credential and token of a presigned link, sent and decoded, and the whole link', () => {
    const link =
      'https://b.s3.invalid/se_1/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261124%2Fus-east-1%2Fs3%2Faws4_request' +
      '&X-Amz-Date=20261124T000000Z&X-Amz-Expires=3600&X-Amz-Security-Token=FwoGZXIvYXdzEJr%2F%2Ftoken&X-Amz-Signature=0123456789abcdef';
    expect(linkSecrets(link).sort()).toEqual(
      [link, 'AKIAEXAMPLE%2F20261124%2Fus-east-1%2Fs3%2Faws4_request', 'AKIAEXAMPLE/20261124/us-east-1/s3/aws4_request', 'FwoGZXIvYXdzEJr%2F%2Ftoken', 'FwoGZXIvYXdzEJr//token', '0123456789abcdef'].sort()
    );
  });

  it('masks Azure and CloudFront signatures too, and nothing of a link that grants nothing', () => {
    expect(linkSecrets('https://a.blob.core.windows.invalid/c/b.tar.gz?se=2026-11-30&sp=r&sig=abcdefgh12345678')).toContain('abcdefgh12345678');
    expect(linkSecrets('https://d.cloudfront.invalid/b.tar.gz?Expires=1&Signature=sigsigsig123&Key-Pair-Id=APKAEXAMPLE1')).toEqual(
      expect.arrayContaining(['sigsigsig123', 'APKAEXAMPLE1'])
    );
    expect(linkSecrets('https://bundles.example.com/se_1/bundle.tar.gz')).toEqual([]);
  });
});
