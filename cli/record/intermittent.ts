/**
 * A 5xx that comes and goes cannot be shown by one curl line: the same request, sent again, was
 * answered otherwise (suites/harness/requirement/second-opinion.ts). Its reproduce is the few lines
 * that show it: the request sent up to TRIES times, the first 5xx answer printed.
 */

/** How many times the script sends the request before it gives up showing a 5xx. */
export const TRIES = 20;

/** The POSIX sh script that sends `curl` (a one-line curl command) until it is answered 5xx. */
export function untilFiveHundred(curl: string, said: string): string {
  return [
    '#!/bin/sh',
    `# ${said.replace(/[\r\n]+/g, ' ')}`,
    `# One request cannot show it: the same request is sent up to ${TRIES} times, and the first 5xx answer is printed.`,
    `i=0; while [ "$i" -lt ${TRIES} ]; do i=$((i + 1)); out=$(${curl}); case "$(printf '%s\\n' "$out" | head -n 1)" in 'HTTP/'*' 5'[0-9][0-9]*) printf '%s\\n' "$out"; break ;; esac; done`,
  ].join('\n');
}
