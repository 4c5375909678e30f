// The values files under fixtures/config name production's link on a storage host that never
// resolves (.invalid). A run with config-path downloads production's export to compare the new one
// with, so a test that runs the action serves that link from an emulator on loopback instead: the
// same path and query, answered there (a 404 for a job the emulator never had), never looked up in DNS.
import { readFileSync } from 'node:fs';

/** The storage the fixtures' links name. */
export const FIXTURE_STORAGE = 'https://static-exports.s3.invalid';

/** A fixture's text with its links on `storage`, for example the platform emulator's `${url}/bundles`. */
export function valuesFixture(name: string, storage: string): string {
  return readFileSync(`__tests__/fixtures/config/${name}`, 'utf8').replaceAll(FIXTURE_STORAGE, storage);
}
