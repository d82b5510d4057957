/**
 * `bintel crm import|list|remove`: an organization's CRM context (which companies are
 * already in its HubSpot or Salesforce), matched by the API's crm_status filter and field.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { example, print as out, withServices } from './shared.ts';
import { CRMS, type Crm } from '../server/services/crm.ts';
import { readCrmFile } from '../ingest/crm-file.ts';
import { CsvSyntaxError } from '../ingest/csv-parse.ts';
import { InputError } from '../ingest/csv-source.ts';

function crmArg(v: string): Crm {
  const c = v.trim().toLowerCase();
  if (!(CRMS as readonly string[]).includes(c)) throw new InvalidArgumentError(`expected one of ${CRMS.join(', ')}`);
  return c as Crm;
}

export function registerCrmCommands(program: Command): void {
  const crm = example(program.command('crm').summary("import and list an organization's CRM companies").description("an organization's CRM context (for the crm_status filter and field)"), 'bintel crm list --org acme');
  example(crm
    .command('import')
    .description('load the companies in an org\'s CRM from a CSV export (domain/website and/or EIN columns), replacing that CRM\'s previous list')
    .requiredOption('--org <org>', 'organization id')
    .requiredOption('--crm <crm>', `which CRM: ${CRMS.join(' or ')}`, crmArg)
    .argument('<file>', 'CSV export of the CRM (companies or contacts)')
    .option('--json', 'print one JSON object')
    .action(async (file: string, o: { org: string; crm: Crm; json?: boolean }) => {
      let parsed;
      try {
        parsed = await readCrmFile(file);
      } catch (err) {
        if (err instanceof InputError || err instanceof CsvSyntaxError) throw Object.assign(new Error(`${err.message} (nothing was imported)`), { exitCode: 1 });
        throw err;
      }
      if (!parsed.eins.length && !parsed.domains.length) {
        throw Object.assign(new Error(`${file}: ${parsed.rows} row(s) but no valid domain or EIN (nothing was imported)`), { exitCode: 1 });
      }
      const info = await withServices((s) => s.crm.replace(o.org, o.crm, parsed, file));
      const shown = parsed.problems.slice(0, 10).map((p) => `  line ${p.line}: ${p.column} ${JSON.stringify(p.value)} is not a valid ${p.issue === 'invalid_ein' ? 'EIN (9 digits)' : 'domain'}`);
      const more = parsed.problems.length > 10 ? [`  … and ${parsed.problems.length - 10} more`] : [];
      out(
        o.json,
        { org: o.org, ...info, rows: parsed.rows, unusable_rows: parsed.unusable, problems: parsed.problems },
        [
          `imported ${o.crm} for org ${o.org}: ${info.domains} domain(s), ${info.eins} EIN(s) from ${parsed.rows} row(s) (columns: ${[...parsed.domainColumns, ...parsed.einColumns].join(', ')})`,
          ...(parsed.unusable ? [`${parsed.unusable} row(s) gave no valid domain or EIN`] : []),
          ...shown,
          ...more,
        ].join('\n'),
      );
    }), 'bintel crm import --org acme --crm hubspot hubspot-companies.csv');
  example(crm
    .command('list')
    .description("the CRM lists loaded for an org")
    .requiredOption('--org <org>', 'organization id')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const lists = await withServices((s) => s.crm.list(o.org));
      out(o.json, lists, lists.length ? lists.map((l) => `${l.crm}: ${l.domains} domain(s), ${l.eins} EIN(s), imported ${l.imported_at} from ${l.source}`).join('\n') : `org ${o.org} has no CRM context`);
    }), 'bintel crm list --org acme --json');
  example(crm
    .command('remove')
    .description("remove an org's list for one CRM")
    .requiredOption('--org <org>', 'organization id')
    .requiredOption('--crm <crm>', `which CRM: ${CRMS.join(' or ')}`, crmArg)
    .action(async (o: { org: string; crm: Crm }) => {
      const had = await withServices((s) => s.crm.remove(o.org, o.crm));
      if (!had) throw Object.assign(new Error(`org ${o.org} has no ${o.crm} list`), { exitCode: 1 });
      process.stdout.write(`removed the ${o.crm} list of org ${o.org}\n`);
    }), 'bintel crm remove --org acme --crm salesforce');
}
