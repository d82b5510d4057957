/**
 * A process that accepts a writing job through the job layer and is killed (SIGKILL, by itself)
 * between the accept script (debit, ledger entry, record) and the enqueue: what the sweeper is
 * for (test/server/paid-jobs.test.ts). Argument: the key id; the namespace comes from the
 * environment. The writing body is given as JSON in argv[3].
 */
import { loadConfig } from '../../core/config.ts';
import { createServices } from '../../server/context.ts';
import { accept } from '../../server/jobs/accept.ts';
import { writingJobKind } from '../../server/jobs/kinds/writing.ts';

const services = createServices(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }));
const key = await services.keys.get(process.argv[2]);
if (!key) throw new Error(`no key ${process.argv[2]}`);
// The enqueue never happens: the process dies where a crash would leave the reservation behind.
services.jobs.add = async () => {
  process.stdout.write('reserved\n');
  process.kill(process.pid, 'SIGKILL');
};
await accept(services, writingJobKind, { key, dataNamespace: services.dataNamespace(key.key_type), sandbox: false, headOnly: false }, JSON.parse(process.argv[3]), null);
