#!/usr/bin/env node
// The petstore-conformance command. The code lives in cli/ (compiled to dist/cli/ by `npm run build`,
// which `npm ci`, `npm install` and `npm pack` run through the prepare and prepack scripts).
import { main } from '../dist/cli/main.js';

// An error that escapes everything is the tool's fault, never the server's: exit 2 (could not
// judge), not Node's default 1, which would read as "non-conformant".
const crash = (error) => {
  process.stderr.write(`petstore-conformance: could not judge: internal error: ${error?.stack ?? error}\n`);
  process.exit(2);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const code = await main(process.argv.slice(2), process.env);
// Exit now: a hostile server may leave sockets open, and the run is over whatever they do.
process.exit(code);
