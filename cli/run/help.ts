import { DEFAULTS, ENV } from './options.ts';

/** The widest line of --help (a test holds it to this): it reads in a 100-column terminal. */
export const HELP_WIDTH = 100;

/** The --help text: every option, every environment variable, an example per kind of user. */
export function helpText(version: string): string {
  return `petstore-conformance ${version}: checks a deployment of the pets service against its
documented contract, requirement by requirement (MUST, SHOULD, MAY), and says whether it conforms.

Usage: petstore-conformance [options]
       petstore-conformance requirements [--json]      the catalog: ids, levels, titles, needs
       petstore-conformance compare <before> <after>   what changed between two runs
       petstore-conformance merge <summary.json…> --out <dir>   several deployments in one table
       petstore-conformance rerun <summary.json|folder>   the failures of a run, checked again
       (each command's --help gives its options)

Target (none: the bundled reference implementation is started on a free loopback port and checked)
  --base-url <url>          the deployment, including its /v1 prefix (env ${ENV.baseUrl})
  --target <name>           a target of the config file's targets; production and staging also
                            read their base URL from ${ENV.productionUrl} or ${ENV.stagingUrl}
  --api-key <key>           sent on every request; never printed or reported (env ${ENV.apiKey})
  --api-key-header <name>   the header that carries the key (default ${DEFAULTS.apiKeyHeader})
  --api-key-query <name>    carry the key in this query parameter instead
  --api-key-scheme <name>   send it as Authorization: <name> <key> (Bearer, ApiKey, Token…)
  --auth-required           also check that requests without the key, or with a wrong one, are
                            refused with 401 or 403 (without --api-key only these refusal checks
                            can pass; the bundled reference needs --api-key for it)

Network
  --proxy <url>             send every request through this proxy (default: HTTPS_PROXY for
                            https:// targets, HTTP_PROXY for http:// ones, either case; hosts in
                            NO_PROXY are reached directly)
  --ca-cert <pem>           trust this CA as well (or NODE_EXTRA_CA_CERTS=<pem>, read by Node)
  --insecure                do not verify the target's certificate (warned; in summary.json)
  --client-cert <pem>       the client certificate of mutual TLS (may hold the key too)
  --client-key <pem>        its private key, unencrypted

What to check
  --read-only               send only safe requests (GET); checks that need writes are skipped
  --only <prefixes>         only requirements whose id starts with one of these comma-separated
                            prefixes, any case (e.g. LIST or LIST,SHOW-OK); the others are skipped
  --exclude <prefixes>      leave out requirements whose id starts with one of these (after --only)
  --strict                  SHOULD-level failures fail the run too (default: only MUST-level ones)
  --baseline <summary.json> fail only on gating requirements that fail now and did not in that run
                            (a summary.json or report folder of the same catalog and gating level)
  --expected <file>         known deviations (YAML or JSON: id, reason, link, expires): a gating
                            failure an entry names does not fail the run; stale entries are listed
                            (and fail the run with --strict)
  --seed <n>                seed of all generated inputs, 0 to ${2 ** 31 - 1} (default: random, printed)
  --timeout-ms <n>          limit for one request, response body included (default ${DEFAULTS.timeoutMs})
  --retries <n>             send a safe request (GET) again, up to n times, when the connection
                            failed before any answer (refused, reset, timed out); a requirement
                            that passed only so is reported flaky (default 0: never)
  --max-response-time <ms>  also check that every answer arrives within <ms> milliseconds
                            (ANY-RESPONSE-TIME, SHOULD); response times are reported either way

Staging: rate limits, tracing
  --rate-limit <n>          send at most n requests a second, the whole run together; a 429 or a
                            503 slows the run by itself as far as that helps, and a quota the
                            deployment declares (RateLimit-Policy, X-RateLimit-*) is kept to
  --concurrency <n>         keep at most n requests in flight, the whole run together (default 128;
                            lower when the deployment takes fewer connections at once)
  --request-id-header <name>  also send each exchange's id in this header, one the deployment logs
                            (e.g. X-Request-Id); every request carries a User-Agent and a W3C
                            traceparent of the run's trace (its id in summary.json)
  --no-trace-headers        send no traceparent and no request id

Reports
  --report-dir <dir>        where reports go (default ${DEFAULTS.reportDir}; the previous run moves beside
                            it: reports/previous, or <dir>.previous for any other folder):
                            summary.json, junit.xml, summary.md, ctrf-report.json,
                            allure-results/, exchanges.har (every exchange, masked)
  --no-har                  do not write exchanges.har
  --html                    also render the Allure HTML report into <dir>/allure-report (no Java)
  --events <file>           the run as it happens, one JSON object a line (- for stdout; the
                            console then goes to stderr)
  --annotations <kind>      github: one ::error line per failed gating requirement, for GitHub
                            Actions (the default when GITHUB_ACTIONS=true); none: no such lines

Config file
  --config <file>           read settings from this JSON or YAML file (default: the
                            petstore-conformance.config.json or .yaml of the working folder):
                            the long options in camelCase (baseUrl, timeoutMs, …), named targets
                            under targets, \${VAR} for values from the environment (the API key
                            only that way); schema: schemas/config.schema.json
  --no-<switch>             turn off a switch the file turns on (--no-strict, --no-read-only…)

  -h, --help                this text
  -v, --version             the version

Flags win over environment variables, which win over the config file, which wins over defaults.
Colours: on a terminal, never with NO_COLOR set, always with FORCE_COLOR=1 (FORCE_COLOR=0 turns
them off).

Subcommands
  requirements              list every requirement: id, level, what it needs, title (--json too)

Exit status
  0  conformant: no MUST-level requirement failed (no MUST or SHOULD with --strict)
  1  non-conformant: a gating requirement failed (a hanging or garbling server lands here)
  2  could not judge: a bad option, the target unreachable, its certificate not trusted, or the
     spec or the suite itself broken
  130, 143  stopped by Ctrl-C or SIGTERM (a second one stops it at once)

Examples
  First look, no server of your own (checks the bundled reference implementation):
    npx petstore-conformance
  QA against staging:
    export ${ENV.stagingUrl}=https://staging.example.com/v1 ${ENV.apiKey}=…
    npx petstore-conformance --target staging
  QA against staging behind a proxy, with the company's CA:
    HTTPS_PROXY=http://proxy.example.com:3128 npx petstore-conformance --target staging \\
      --ca-cert company-ca.pem
  A CI gate (fail the job on a non-zero exit):
    npx petstore-conformance --base-url "$URL" --report-dir reports/ci
  An implementer, own server on a laptop:
    npx petstore-conformance --base-url http://localhost:8080/v1 --only LIST
  Production smoke check (GET requests only):
    ${ENV.productionUrl}=https://pets.example.com/v1 npx petstore-conformance \\
      --target production --read-only
  Reproduce a run's generated inputs:
    npx petstore-conformance --base-url http://localhost:8080/v1 --seed 1234567
`;
}
