import { DEFAULTS, ENV } from './options.ts';

/** The --help text: every option, every environment variable, an example per kind of user. */
export function helpText(version: string): string {
  return `petstore-conformance ${version}: checks a deployment of the pets service against its documented contract,
requirement by requirement (MUST, SHOULD, MAY), and says whether it is conformant.

Usage: petstore-conformance [options]
       petstore-conformance compare <before> <after> [--markdown <file>]   what changed between two runs
       petstore-conformance merge <summary.json…> --out <dir>             several deployments in one table
       (each command's --help gives its options)

Target (no target: the bundled reference implementation is started on a free loopback port and checked)
  --base-url <url>          the deployment, including its /v1 prefix            env ${ENV.baseUrl}
  --target <name>           production or staging: the base URL is read from    env ${ENV.productionUrl}
                            the variable of that name                               ${ENV.stagingUrl}
  --api-key <key>           sent on every request; never printed or reported    env ${ENV.apiKey}
  --api-key-header <name>   the header that carries the key (default ${DEFAULTS.apiKeyHeader})
  --api-key-query <name>    carry the key in this query parameter instead
  --auth-required           also check that requests without the key, or with a wrong one, are refused
                            with 401 or 403 (without --api-key only these refusal checks can pass;
                            the bundled reference needs --api-key for it)

What to check
  --read-only               send only safe requests (GET); checks that need writes are reported skipped
  --only <prefixes>         only requirements whose id starts with one of these comma-separated prefixes
                            (e.g. LIST or LIST,SHOW-OK); the others are reported skipped
  --strict                  SHOULD-level failures fail the run too (default: only MUST-level failures do)
  --baseline <summary.json> fail only on gating requirements that fail now and did not in that run
                            (a summary.json or report folder of the same catalog and gating level)
  --seed <n>                seed of every generated input (0 to ${2 ** 31 - 1}; default: random, printed)
  --timeout-ms <n>          limit for one request, response body included (default ${DEFAULTS.timeoutMs})

Reports
  --report-dir <dir>        where reports go (default ${DEFAULTS.reportDir}; the previous run is moved beside
                            it: reports/previous, or <dir>.previous for any other folder)
                            summary.json, junit.xml, summary.md, allure-results/
  --html                    also render the Allure HTML report into <dir>/allure-report (no Java needed)

  -h, --help                this text
  -v, --version             the version

Flags win over environment variables, which win over defaults.

Exit status
  0  conformant: no MUST-level requirement failed (no MUST or SHOULD with --strict)
  1  non-conformant: at least one gating requirement failed (a hanging or garbling server lands here)
  2  could not judge: a bad option, the target unreachable, or the spec or the suite itself broken

Examples
  First look, no server of your own (checks the bundled reference implementation):
    npx petstore-conformance
  QA against staging:
    ${ENV.stagingUrl}=https://staging.example.com/v1 ${ENV.apiKey}=… npx petstore-conformance --target staging
  A CI gate (fail the job on a non-zero exit):
    npx petstore-conformance --base-url "$URL" --report-dir reports/ci
  An implementer, own server on a laptop:
    npx petstore-conformance --base-url http://localhost:8080/v1 --only LIST
  Production smoke check (GET requests only):
    ${ENV.productionUrl}=https://pets.example.com/v1 npx petstore-conformance --target production --read-only
  Reproduce a run's generated inputs:
    npx petstore-conformance --base-url http://localhost:8080/v1 --seed 1234567
`;
}
