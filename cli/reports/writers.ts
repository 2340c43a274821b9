/**
 * Every output of a run, in the order publishing writes them (run/publish.ts): the files first,
 * then what the console and the annotations say of them.
 */
import { allureResults } from './allure.ts';
import { annotations } from './annotations.ts';
import { endOfRun } from './console.ts';
import { htmlReport } from './html.ts';
import { junitXmlFile } from './junit.ts';
import { summaryJsonFile } from './summary-json.ts';
import { summaryMdFile } from './summary-md.ts';
import type { Writer } from './writer.ts';

export const WRITERS: readonly Writer[] = [
  summaryJsonFile,
  junitXmlFile,
  summaryMdFile,
  allureResults,
  htmlReport,
  endOfRun,
  annotations,
];
