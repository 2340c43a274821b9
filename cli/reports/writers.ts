/**
 * Every output of a run, in the order publishing writes them (run/publish.ts): the files first,
 * then what the console and the annotations say of them, then the end of the event stream (its
 * last line says how the run ended, so nothing may come after it).
 */
import { allureResults } from './allure-results.ts';
import { annotations } from './annotations.ts';
import { endOfRun } from './console.ts';
import { ctrfReportFile } from './ctrf.ts';
import { eventsEnd } from './events.ts';
import { harFile } from './har.ts';
import { htmlReport } from './html.ts';
import { junitXmlFile } from './junit.ts';
import { reproduceScript } from './reproduce-sh.ts';
import { summaryJsonFile } from './summary-json.ts';
import { summaryMdFile } from './summary-md.ts';
import type { Writer } from './writer.ts';

export const WRITERS: readonly Writer[] = [
  summaryJsonFile,
  junitXmlFile,
  summaryMdFile,
  reproduceScript,
  ctrfReportFile,
  allureResults,
  htmlReport,
  harFile,
  endOfRun,
  annotations,
  eventsEnd,
];
