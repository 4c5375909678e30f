// The platform emulator of ci.yml's dry-run job: `npm run emulator` with the same flags, told also of
// the export job that the link in values.yaml (beside this file) names, so that renew/ can make a
// fresh link for it as it does for production's export. The emulator gives its jobs random ids and a
// committed file cannot know one, so the job is seeded and filed under the id the file names.
import { readFileSync } from 'node:fs';
import { startFromArgs } from '../../emulator/cli.ts';

const FIXTURE = new URL('values.yaml', import.meta.url);

const jobId = /\/(se_[0-9a-f]{16})\//.exec(readFileSync(FIXTURE, 'utf8'))?.[1];
if (!jobId) throw new Error(`${FIXTURE.pathname} names no export job (se_ and 16 hex digits) in its link`);

const { emulator, banner } = await startFromArgs(process.argv.slice(2));
const seeded = emulator.exportJobs.get(emulator.seedExportJob({ domain: 'docs.example.com' }))!;
emulator.exportJobs.delete(seeded.jobId);
seeded.jobId = jobId;
emulator.exportJobs.set(jobId, seeded);
console.log(`${banner}\n  it knows export job ${jobId}, which ${FIXTURE.pathname.split('/').slice(-3).join('/')} names`);

const stop = (): void => void emulator.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
