/**
 * petstore-conformance rerun <summary.json|report folder> [options]
 *
 * The fix loop: runs again exactly the requirements an earlier run failed or left blocked, and the
 * requirements that blocked them (cli/record/rerun.ts), with its seed and options, against its
 * target (the bundled reference started again) or the one given. The run's reports say of each
 * whether it is fixed, still failing or blocked. Any option of a run may be given after the summary
 * and wins over what the earlier run used, except --only and --exclude: the rerun chooses.
 */
import { loadCatalog } from '../../catalog/catalog.ts';
import { type Env, EXIT, type Io, NAME, type StartRun } from '../record/command.ts';
import { catalogIdentity } from '../record/record.ts';
import { type RerunSource, rerunSelection } from '../record/rerun.ts';
import { catalogDifference, readSummary, type Summary, SummaryFileError } from './summary-file.ts';

const USAGE = `Usage: ${NAME} rerun <summary.json|report folder> [options of a run]

Runs again exactly the requirements that run failed or left blocked (and the requirements that
blocked them), with its seed and options, against the same target (the bundled reference is started
again) or the one given, and says of each whether it is fixed, still failing or blocked.

  --base-url <url>          check this deployment instead (or --target production|staging)
  --report-dir <dir>        where the rerun's reports go (default reports/rerun)
  any other option          wins over what the earlier run used (--only and --exclude excepted:
                            the rerun chooses the requirements)
  -h, --help                this text

The API key comes from --api-key or PETSTORE_API_KEY, as for any run: summary.json never holds it.

Exit status: 0 when every gating requirement that failed or was blocked is fixed, 1 when one still
fails or is blocked, 2 when it cannot judge (a bad summary, another catalog, a run that could not judge).
`;

/** The report folder of a rerun unless --report-dir says otherwise: the earlier run's stays as it is. */
const RERUN_REPORT_DIR = 'reports/rerun';

class RerunError extends Error {}

export async function run(args: readonly string[], _env: Env, io: Io, startRun: StartRun): Promise<number> {
  const err = (line: string) => io.stderr.write(`${line}\n`);
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(USAGE);
    return EXIT.conformant;
  }
  try {
    const [given, ...rest] = args;
    if (given === undefined || given.startsWith('-')) {
      throw new RerunError('give the summary.json or report folder of the run to repeat first');
    }
    const refused = rest.find((a) => /^--(only|exclude)(=|$)/.test(a));
    if (refused !== undefined) {
      throw new RerunError(
        `${refused.split('=')[0]} cannot be given: a rerun checks the requirements the earlier run failed or left blocked`,
      );
    }
    const { summary } = readSummary(given, io.cwd);
    const plan = planRerun(given, summary, rest);
    if (plan.bad.length === 0) {
      io.stdout.write(
        `${NAME} rerun: nothing to rerun: no requirement of ${given} failed or was blocked (verdict ${summary.verdict})\n`,
      );
      return EXIT.conformant;
    }
    for (const warning of plan.warnings) err(`warning: ${warning}`);
    io.stdout.write(`${plan.headline}\n\n`);
    return await startRun([...plan.argv, ...rest], { rerun: plan.source });
  } catch (error) {
    if (error instanceof SummaryFileError || error instanceof RerunError) {
      err(`${NAME} rerun: ${error.message}`);
      err(`Run ${NAME} rerun --help for the usage.`);
      return EXIT.cannotJudge;
    }
    throw error;
  }
}

/** What a rerun runs: the arguments of the run, the requirements it checks again, what it says first. */
export interface RerunPlan {
  /** The earlier run's options as arguments, the selection, the target and report folder unless given. */
  readonly argv: readonly string[];
  readonly bad: readonly string[];
  readonly preconditions: readonly string[];
  readonly source: RerunSource;
  readonly headline: string;
  readonly warnings: readonly string[];
}

/** The run that repeats `summary`'s failures; `given` are the options given to rerun. Throws RerunError. */
export function planRerun(file: string, summary: Summary, given: readonly string[]): RerunPlan {
  if (summary.error !== undefined) {
    throw new RerunError(
      `${file}: that run could not judge (${summary.error}); what it left unjudged is not a failure to rerun: run it again in full, as its reason says`,
    );
  }
  const catalog = loadCatalog();
  const ours = catalogIdentity(catalog.requirements);
  if (summary.catalog !== undefined && summary.catalog.hash !== ours.hash) {
    throw new RerunError(
      `${file} was judged against another catalog (${catalogDifference(summary.results, catalog.requirements)}): run it again in full`,
    );
  }
  const unknown = summary.results.filter((r) => catalog.get(r.id) === undefined).map((r) => r.id);
  if (unknown.length > 0) {
    throw new RerunError(
      `${file} names requirements this catalog does not have (${unknown.join(', ')}): run it again in full`,
    );
  }
  const { bad, preconditions } = rerunSelection(summary.results);
  const chosen = new Set([...bad, ...preconditions]);
  const ids = summary.results.map((r) => r.id).filter((id) => chosen.has(id));
  // --only takes prefixes: leave out, by --exclude, any other id that one of these ids begins.
  const others = catalog.requirements
    .map((r) => r.id)
    .filter((id) => !chosen.has(id) && ids.some((chosenId) => id.startsWith(chosenId)));
  const has = (...flags: string[]) => given.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)));
  const o = summary.options;
  const argv: string[] = ['--seed', String(summary.seed)];
  if (o.readOnly) argv.push('--read-only');
  if (o.strict) argv.push('--strict');
  if (o.authRequired) argv.push('--auth-required');
  if (o.insecure) argv.push('--insecure');
  if (o.timeoutMs !== undefined) argv.push('--timeout-ms', String(o.timeoutMs));
  if (o.retries) argv.push('--retries', String(o.retries));
  // The same pace and the same request ids: the deployment's limit and its logs are the same too.
  if (o.rateLimit !== undefined && !has('--rate-limit')) argv.push('--rate-limit', String(o.rateLimit));
  if (o.concurrency !== undefined && !has('--concurrency')) argv.push('--concurrency', String(o.concurrency));
  if (o.requestIdHeader !== undefined && !has('--request-id-header'))
    argv.push('--request-id-header', o.requestIdHeader);
  if (!has('--api-key-header', '--api-key-query')) {
    if (o.apiKeyQuery !== undefined) argv.push('--api-key-query', o.apiKeyQuery);
    else if (o.apiKeyHeader !== undefined) argv.push('--api-key-header', o.apiKeyHeader);
  }
  if (o.expected !== undefined && !has('--expected')) argv.push('--expected', o.expected);
  argv.push('--only', ids.join(','));
  if (others.length > 0) argv.push('--exclude', others.join(','));
  const reference = o.targetFrom?.startsWith('bundled reference implementation') ?? false;
  if (!has('--base-url', '--target') && !reference) argv.push('--base-url', summary.target);
  if (!has('--report-dir')) argv.push('--report-dir', RERUN_REPORT_DIR);

  const warnings: string[] = [];
  const lost = [
    o.proxy && !has('--proxy') ? '--proxy (unless HTTPS_PROXY or HTTP_PROXY still sets it)' : '',
    o.caCert && !has('--ca-cert') ? '--ca-cert' : '',
    o.clientCert && !has('--client-cert') ? '--client-cert and --client-key' : '',
  ].filter(Boolean);
  if (lost.length > 0) {
    warnings.push(
      `the earlier run used ${lost.join(', ')}; summary.json records that, not the value: give it again`,
    );
  }
  const givenTarget = given.findIndex((a) => a === '--base-url' || a === '--target');
  const target = has('--base-url', '--target')
    ? givenTarget >= 0 && given[givenTarget + 1] !== undefined
      ? `${given[givenTarget]} ${given[givenTarget + 1]}`
      : 'the target given'
    : reference
      ? 'the bundled reference implementation, started again'
      : summary.target;
  const list = (xs: readonly string[]) => (xs.length > 6 ? `${xs.slice(0, 6).join(', ')}, …` : xs.join(', '));
  const headline = [
    `${NAME} rerun of ${file} (the run of ${summary.startedAt}, seed ${summary.seed}): ${bad.length} requirement${bad.length === 1 ? '' : 's'} failed or blocked (${list(bad)})`,
    ...(preconditions.length > 0
      ? [`  and ${preconditions.length} that blocked them, checked again with them (${list(preconditions)})`]
      : []),
    `  against ${target}`,
  ].join('\n');
  return {
    argv,
    bad,
    preconditions,
    source: {
      file,
      startedAt: summary.startedAt,
      target: summary.target,
      results: summary.results.map((r) => ({
        id: r.id,
        level: r.level,
        status: r.status,
        ...(r.blockedBy === undefined ? {} : { blockedBy: r.blockedBy }),
      })),
    },
    headline,
    warnings,
  };
}
